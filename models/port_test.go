package models

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/frames"
)

// TestRegisterErrors: Register refuses a port it could not serve, naming it, and
// leaves the registry as it was.
func TestRegisterErrors(t *testing.T) {
	gen := func(*rand.Rand, int, int) (PortData, error) { return nil, nil }
	load := func(*frames.StanData) (PortData, error) { return nil, nil }
	ok := Port{Spec: Spec{Name: "fake_port", DefaultN: 3}, Program: "fake", Stan: "model {}", Generate: gen, Load: load}
	before := Names()
	for _, c := range []struct {
		edit func(p *Port)
		want string
	}{
		{func(p *Port) { p.Spec.Name = "" }, "a port without a name"},
		{func(p *Port) { p.Spec.Name = "blr" }, `model "blr" is already registered`},
		{func(p *Port) { p.Stan = "" }, "fake_port: no Stan program"},
		{func(p *Port) { p.Program = "" }, "fake_port: no Stan program"},
		{func(p *Port) { p.Spec.DefaultN = 0 }, "fake_port: DefaultN = 0"},
		{func(p *Port) { p.Load = nil }, "fake_port: Generate and Load are required"},
	} {
		p := ok
		c.edit(&p)
		if err := Register(&p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Register: %v, want an error containing %q", err, c.want)
		}
	}
	if !slices.Equal(Names(), before) {
		t.Errorf("the registry changed: %v", Names())
	}
	if spec, _ := Lookup("blr"); spec.StanJSON() || spec.Sizes() != "" {
		t.Error("blr reads CmdStan JSON")
	}
	if _, err := LoadStanJSON("blr", "x.json"); err == nil || !strings.Contains(err.Error(), "does not read CmdStan JSON") {
		t.Errorf("LoadStanJSON of blr: %v", err)
	}
}
