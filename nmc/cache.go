package nmc

// cacheState says which sites' cached scores (siteState.slots) are valid in one
// chain. Without a Neighborer, a site's cache is valid while its stamp equals
// changes (the number of state changes so far). With one, a site whose score reads
// at most trackedReads others is tracked (valid holds its flag, cleared through
// sampling.tracked), and one that reads more is stamped (sampling.broad) and made
// stale by every change of a site that a stamped site reads (sampling.bumps); see
// cacheTracking.
type cacheState struct {
	valid   []bool
	stamp   []uint64
	changes uint64
	// edits counts the changes of the state (changed and invalidateAll calls), so
	// that a score computed at one state is known to hold while edits stays the same.
	edits uint64
}

func newCacheState(run *sampling) cacheState {
	cs := cacheState{stamp: make([]uint64, len(run.sites)), changes: 1} // every stamp starts invalid
	if run.dependents != nil {
		cs.valid = make([]bool, len(run.sites))
	}
	return cs
}

// trackedReads is the most other sites that a site's score may read for its cache
// to be tracked by flags. A site that reads more is nearly always stale by its next
// step (one change among its many reads suffices), so clearing its flag at each of
// those changes costs a write per change and saves no score evaluation; it is
// stamped instead: every change of a site that a stamped site reads makes all of
// them stale at the cost of one increment. (Measured on the graph Dawid-Skene model
// with the classes explicit, 5,000 items, 100 labelers, whose confusion rows read
// hundreds of classes each: 50 sweeps recompute 15,040 cached scores with flags
// only and 15,050 with the rows and the prevalence stamped, and the sweep is 7%
// faster.)
const trackedReads = 32

// cacheTracking splits the sites for cache validity given dependents (dependents[j]
// = the sites whose score reads site j): broad[i] reports that site i reads more
// than trackedReads others and is stamped, tracked[j] lists the other (flagged)
// sites among dependents[j], and bumps[j] reports that some stamped site reads j.
func cacheTracking(dependents [][]int) (tracked [][]int, broad, bumps []bool) {
	n := len(dependents)
	reads := make([]int, n)
	for _, dep := range dependents {
		for _, i := range dep {
			reads[i]++
		}
	}
	broad = make([]bool, n)
	for i, r := range reads {
		broad[i] = r > trackedReads
	}
	tracked = make([][]int, n)
	bumps = make([]bool, n)
	for j, dep := range dependents {
		for _, i := range dep {
			if broad[i] {
				bumps[j] = true
			} else {
				tracked[j] = append(tracked[j], i)
			}
		}
	}
	return tracked, broad, bumps
}

// flagged reports whether site i's cache validity is a flag (in valid) rather than
// a stamp.
func (c *Chain) flagged(i int) bool {
	return c.cache.valid != nil && !c.run.broad[i]
}

func (c *Chain) isValid(i int) bool {
	if c.flagged(i) {
		return c.cache.valid[i]
	}
	return c.cache.stamp[i] == c.cache.changes
}

func (c *Chain) setValid(i int) {
	if c.flagged(i) {
		c.cache.valid[i] = true
	} else {
		c.cache.stamp[i] = c.cache.changes
	}
}

// invalidate marks site i's own cache stale.
func (c *Chain) invalidate(i int) {
	if c.flagged(i) {
		c.cache.valid[i] = false
	} else {
		c.cache.stamp[i] = 0 // changes starts at 1
	}
}

// changed records that site i's value changed, invalidating the caches that read it.
// With a Neighborer, site i's own cache stays as it was.
func (c *Chain) changed(i int) {
	cs := &c.cache
	cs.edits++
	if c.sc.dw != nil && c.run.sites[i].Support == Discrete {
		c.sc.dw.Changed(i)
	}
	if cs.valid == nil {
		cs.changes++
		return
	}
	for _, j := range c.run.tracked[i] {
		cs.valid[j] = false
	}
	if c.run.bumps[i] {
		own := c.run.broad[i] && cs.stamp[i] == cs.changes
		cs.changes++
		if own {
			cs.stamp[i] = cs.changes
		}
	}
}

// moved records that site i's value was changed from outside its own step (by a
// group move): the caches that read it and its own cache become stale.
func (c *Chain) moved(i int) {
	c.changed(i)
	c.invalidate(i)
}

// discreteWritten reports a write of the Discrete site i's value in the state (every
// site's when i < 0) to a DiscreteWatcher scorer, for writes that changed does not
// report: values tried and put back.
func (c *Chain) discreteWritten(i int) {
	if c.sc.dw != nil {
		c.sc.dw.Changed(i)
	}
}

// invalidateAll marks every cache stale (after the state was written from outside).
func (c *Chain) invalidateAll() {
	c.cache.edits++
	if c.sc.dw != nil {
		c.sc.dw.Changed(-1)
	}
	if c.sc.aug != nil {
		c.sc.aug.allMarg = true
	}
	if c.cache.valid != nil {
		clear(c.cache.valid)
	}
	c.cache.changes++
}

// keep tells the Scorer, if it keeps values of recent states, that the chain is
// back at its state after a rejected proposal (StateKeeper).
func (c *Chain) keep() {
	if c.sc.keeper != nil {
		c.sc.keeper.Keep(c.x)
	}
}
