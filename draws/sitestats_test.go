package draws

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestSiteStatsAcceptRate(t *testing.T) {
	if r := (SiteStats{Proposals: 8, Accepted: 2}).AcceptRate(); r != 0.25 {
		t.Errorf("2 of 8: AcceptRate %v, want 0.25", r)
	}
	if r := (SiteStats{}).AcceptRate(); !math.IsNaN(r) {
		t.Errorf("no proposals: AcceptRate %v, want NaN", r)
	}
}

func TestSiteStatsCheck(t *testing.T) {
	if err := (SiteStats{Name: "a", Sites: 1, Proposals: 4, Accepted: 4, Fallbacks: 4}).Check(); err != nil {
		t.Errorf("consistent counts: %v", err)
	}
	for _, c := range []struct {
		s    SiteStats
		want string
	}{
		{SiteStats{Proposals: 1}, "empty name"},
		{SiteStats{Name: "a", Proposals: -1}, `site "a": negative count`},
		{SiteStats{Name: "a", Sites: -1}, `site "a": negative count`},
		{SiteStats{Name: "a", Proposals: 2, Accepted: 3}, `site "a": 3 accepted of 2 proposals`},
		{SiteStats{Name: "a", Proposals: 2, Fallbacks: 3}, `site "a": 3 fallbacks in 2 proposals`},
	} {
		if err := c.s.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.s, err, c.want)
		}
	}
}

func TestGroupSites(t *testing.T) {
	stats := []SiteStats{
		{Name: "alpha", Proposer: "newton-gaussian", Sites: 1, Proposals: 10, Accepted: 9, Fallbacks: 1},
		{Name: "z[0]", Proposer: "enumerate", Sites: 1, Proposals: 10, Accepted: 10},
		{Name: "theta[0,1]", Proposer: "dirichlet", Sites: 1, Proposals: 10, Accepted: 4},
		{Name: "z[1]", Proposer: "enumerate", Sites: 1, Proposals: 10, Accepted: 10, Fallbacks: 2},
		{Name: "z[2]", Proposer: "discrete-mh", Sites: 1, Proposals: 10, Accepted: 3},
		{Name: "theta[1,0]", Proposer: "dirichlet", Sites: 1, Proposals: 10, Accepted: 6},
	}
	want := []SiteStats{
		{Name: "alpha", Proposer: "newton-gaussian", Sites: 1, Proposals: 10, Accepted: 9, Fallbacks: 1},
		{Name: "z", Proposer: "enumerate", Sites: 2, Proposals: 20, Accepted: 20, Fallbacks: 2},
		{Name: "theta", Proposer: "dirichlet", Sites: 2, Proposals: 20, Accepted: 10},
		{Name: "z", Proposer: "discrete-mh", Sites: 1, Proposals: 10, Accepted: 3},
	}
	if got := GroupSites(stats); !reflect.DeepEqual(got, want) {
		t.Errorf("GroupSites:\n got %+v\nwant %+v", got, want)
	}
	if got := GroupSites(nil); len(got) != 0 {
		t.Errorf("GroupSites(nil) = %v", got)
	}
}
