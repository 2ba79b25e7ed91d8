package graph

import (
	"fmt"
	"strings"
)

// Variable names. A name is plain — any non-empty text without '[', ']', ',' or
// space, such as mu or log_sigma — or indexed: a plain base and one or more
// non-negative integer indices in canonical form, as z[3] or Sigma[1,0] (no
// spaces, no sign, no leading zeros). The draws name a plate's sites and a vector's
// coordinates in the indexed form (theta[0], theta[1], …), so an indexed name is
// accepted for a declaration that is one scalar, whose column it then is: the
// states z[0], z[1], … of a recursion declared one by one in a Go loop (a plate
// cannot read its own elements) are recorded as a plate's sites would be, and
// summaries group them under z. A base declared with indices is not a plain name
// as well (its columns would mix with a plate's or be read as one variable), and
// its indices have one rank.

// claim records name as declared, or returns why it cannot be: malformed, declared
// before, indexed where the declaration is not one scalar (scalar false), or
// clashing with the indexed names of the same base.
func (b *Builder) claim(name string, scalar bool) error {
	base, rank, ok := parseName(name)
	if !ok {
		return fmt.Errorf("graph: invalid variable name %q: a name is text without '[', ']', ',' or spaces, optionally followed by non-negative integer indices, as z[3] or Sigma[1,0]", name)
	}
	if b.names[name] {
		return fmt.Errorf("graph: duplicate variable name %q", name)
	}
	if rank > 0 {
		if !scalar {
			return fmt.Errorf("graph: invalid variable name %q: an index is accepted in the name of one scalar only (its column of the draws); name a plate, a vector or an observation of several elements without one: Latent(%q, d, n) declares the sites %s[0] … %s[n−1]", name, base, base, base)
		}
		if b.names[base] {
			return fmt.Errorf("graph: variable name %q: %q is declared without indices, and the columns of the two would mix", name, base)
		}
		if r, seen := b.indexed[base]; seen && r != rank {
			return fmt.Errorf("graph: variable name %q: %s is declared with %d indices elsewhere, not %d", name, base, r, rank)
		}
	} else if _, seen := b.indexed[name]; seen {
		return fmt.Errorf("graph: variable name %q is declared with indices (as %s[…]), and the columns of the two would mix", name, name)
	}
	if b.names == nil { // a zero Builder, not made by New
		b.names = map[string]bool{}
	}
	b.names[name] = true
	if rank > 0 {
		if b.indexed == nil {
			b.indexed = map[string]int{}
		}
		b.indexed[base] = rank
	}
	return nil
}

// parseName splits a variable name into its base and its number of indices (0 for
// a plain name), or reports false for a malformed one.
func parseName(name string) (base string, rank int, ok bool) {
	open := strings.IndexByte(name, '[')
	if open < 0 {
		return name, 0, name != "" && !strings.ContainsAny(name, "], ")
	}
	base = name[:open]
	if base == "" || strings.ContainsAny(base, "], ") || !strings.HasSuffix(name, "]") {
		return "", 0, false
	}
	for _, idx := range strings.Split(name[open+1:len(name)-1], ",") {
		if !canonicalIndex(idx) {
			return "", 0, false
		}
		rank++
	}
	return base, rank, true
}

// canonicalIndex reports whether s is a non-negative integer written as Sprint
// writes it: decimal digits without a sign or leading zeros.
func canonicalIndex(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
