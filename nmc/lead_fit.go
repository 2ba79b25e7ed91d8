package nmc

// The lead-and-follow moves' random walk (LeadMoves): the warm-up moments of a
// lead's unconstrained coordinates, the maps to and from them, and a lead's move.

// siteMoments accumulates the warm-up moments of one site's unconstrained
// coordinates: their sums and cross products.
type siteMoments struct {
	d          int
	n          int
	sum, cross []float64 // d, d×d
	u          []float64 // d scratch
}

func newSiteMoments(d int) *siteMoments {
	return &siteMoments{d: d, sum: make([]float64, d), cross: make([]float64, d*d), u: make([]float64, d)}
}

func (m *siteMoments) reset() {
	m.n = 0
	clear(m.sum)
	clear(m.cross)
}

// add adds the site's coordinates x.
func (m *siteMoments) add(s Site, x []float64) {
	u := m.u
	toFree(s, x, u)
	if !allFinite(u) {
		return
	}
	d := m.d
	for a := 0; a < d; a++ {
		m.sum[a] += u[a]
		for b := 0; b <= a; b++ {
			m.cross[a*d+b] += u[a] * u[b]
		}
	}
	m.n++
}

// cov writes the sample covariance into dst (d×d) and reports whether there are
// enough draws (at least minLeadDraws and 2d).
func (m *siteMoments) cov(dst []float64) bool {
	if m.n < max(minLeadDraws, 2*m.d) {
		return false
	}
	n := float64(m.n)
	d := m.d
	for a := 0; a < d; a++ {
		for b := 0; b <= a; b++ {
			v := (m.cross[a*d+b] - m.sum[a]*m.sum[b]/n) / (n - 1)
			dst[a*d+b], dst[b*d+a] = v, v
		}
	}
	return true
}

// jointMove is one lead's move in one chain.
type jointMove struct {
	lead      int
	d         int       // the lead's unconstrained dimension
	followers []int     // in their fixed order
	l         []float64 // d×d: Cholesky factor of the random walk's covariance
	u, u2, z  []float64 // d scratch
	old, fwd  []float64 // the lead's and the followers' old and proposed values
	pos       []int     // per follower: its offset in old and fwd
	order     []int     // the followers in the order of the current move
	slot      slot      // scratch fit of a follower (the largest follower's size)
}

func newJointMove(lead int, sites []Site) *jointMove {
	d := freeDim(sites[lead])
	return &jointMove{lead: lead, d: d, l: make([]float64, d*d),
		u: make([]float64, d), u2: make([]float64, d), z: make([]float64, d)}
}

// setFollowers sets the followers and sizes the move's buffers for them.
func (j *jointMove) setFollowers(sites []Site, followers []int) {
	j.followers = followers
	n, k := sites[j.lead].Size, 0
	j.pos = make([]int, len(followers))
	for f, i := range followers {
		j.pos[f] = n
		n += sites[i].Size
		k = max(k, sites[i].Size)
	}
	j.old, j.fwd = make([]float64, n), make([]float64, n)
	j.order = make([]int, 0, len(followers))
	j.slot = newSlot(k)
}
