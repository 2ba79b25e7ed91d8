package frames

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds ReadStanJSON's parser: a JSON reader that keeps what encoding/json
// does not (the order of the names, repeated names, how each number was written,
// bare NaN and Infinity, line and column) and checks the shape of every variable as
// it reads, so that an error names the element.

// Element kinds at one depth of a variable.
const (
	stanKindArray  = 1
	stanKindNumber = 2
)

// stanParser reads one JSON text. The current variable's state (name … path) is
// reset for every member of the top-level object.
type stanParser struct {
	data []byte
	pos  int
	src  string

	name  string
	v     *stanVar
	dims  []int  // by depth: the length of the arrays at that depth, −1 while unknown
	kinds []byte // by depth: stanKindArray or stanKindNumber, set by the first element
	path  []int  // the index of the element being read at each depth
}

func (p *stanParser) parse() (*StanData, error) {
	if strings.HasPrefix(string(p.data[:min(len(p.data), 3)]), "\ufeff") {
		p.pos = 3
	}
	p.skipSpace()
	if p.pos >= len(p.data) {
		return nil, p.syntaxErr("empty input, want a JSON object")
	}
	if c := p.data[p.pos]; c != '{' {
		return nil, p.syntaxErr(fmt.Sprintf("found %s, want a JSON object of named variables", describeStart(c)))
	}
	p.pos++
	d := &StanData{vars: map[string]*stanVar{}}
	p.skipSpace()
	if p.peek() == '}' {
		p.pos++
	} else {
		for {
			p.skipSpace()
			if p.peek() != '"' {
				return nil, p.unexpected("a variable name in double quotes")
			}
			name, err := p.str()
			if err != nil {
				return nil, err
			}
			if name == "" {
				return nil, fmt.Errorf("frames: %s: a variable has an empty name", p.src)
			}
			if _, dup := d.vars[name]; dup {
				return nil, fmt.Errorf("frames: %s: %q: defined twice", p.src, name)
			}
			p.skipSpace()
			if p.peek() != ':' {
				return nil, p.unexpected("':' after the name")
			}
			p.pos++
			p.name = name
			p.v = &stanVar{firstNonInt: -1, firstNonFinite: -1}
			p.dims, p.kinds, p.path = p.dims[:0], p.kinds[:0], p.path[:0]
			if err := p.value(0); err != nil {
				return nil, err
			}
			if len(p.dims) > 0 {
				p.v.dims = append([]int(nil), p.dims...)
			}
			if p.v.firstNonInt >= 0 {
				p.v.ints = nil
			}
			d.names = append(d.names, name)
			d.vars[name] = p.v
			p.skipSpace()
			c := p.peek()
			if c == ',' {
				p.pos++
				continue
			}
			if c == '}' {
				p.pos++
				break
			}
			return nil, p.unexpected("',' or '}' after a variable")
		}
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.syntaxErr(fmt.Sprintf("%s after the closing brace", describeStart(p.data[p.pos])))
	}
	return d, nil
}

// value reads the value at the given depth of the current variable.
func (p *stanParser) value(depth int) error {
	p.skipSpace()
	switch c := p.peek(); {
	case c == '[':
		return p.array(depth)
	case c == '-' || isDigit(c) || c == 'N' || c == 'I':
		return p.number(depth)
	case c == '"':
		start := p.pos
		s, err := p.str()
		if err != nil {
			return err
		}
		f, ok := stanSpecial(s)
		if !ok {
			return p.elemErr("is %s, want %s", p.text(start), p.want(depth))
		}
		return p.leaf(depth, f, false, 0, start)
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(string(p.data[p.pos:min(len(p.data), p.pos+len(lit))]), lit) {
				return p.elemErr("is %s, want %s", lit, p.want(depth))
			}
		}
		return p.unexpected("a value")
	case c == '{':
		if depth == 0 {
			return p.elemErr("is an object, want a number or an array (Stan's tuples are not read)")
		}
		return p.elemErr("is an object, want %s", p.want(depth))
	default:
		return p.unexpected("a value")
	}
}

// want says what may stand at depth, for messages: what the first element there is.
func (p *stanParser) want(depth int) string {
	switch {
	case depth >= len(p.kinds):
		return "a number or an array"
	case p.kinds[depth] == stanKindArray:
		return "an array as element " + indexString(make([]int, depth))
	}
	return "a number"
}

// array reads an array at the given depth.
func (p *stanParser) array(depth int) error {
	if err := p.kind(depth, stanKindArray, "an array"); err != nil {
		return err
	}
	if depth >= stanJSONMaxDepth {
		return p.elemErr("nests arrays more than %d deep", stanJSONMaxDepth)
	}
	p.pos++ // '['
	if len(p.dims) == depth {
		p.dims = append(p.dims, -1)
	}
	p.path = append(p.path[:depth], 0)
	n := 0
	p.skipSpace()
	if p.peek() == ']' {
		p.pos++
	} else {
		for {
			p.path = p.path[:depth+1]
			p.path[depth] = n
			if err := p.value(depth + 1); err != nil {
				return err
			}
			n++
			p.skipSpace()
			c := p.peek()
			if c == ',' {
				p.pos++
				continue
			}
			if c == ']' {
				p.pos++
				break
			}
			return p.unexpected("',' or ']' in an array")
		}
	}
	p.path = p.path[:depth]
	if want := p.dims[depth]; want < 0 {
		p.dims[depth] = n
	} else if n != want {
		return p.raggedErr(depth, n, want)
	}
	return nil
}

// number reads a JSON number, or a bare NaN, Infinity, -Infinity, Inf or -Inf.
func (p *stanParser) number(depth int) error {
	start := p.pos
	if p.peek() == '-' {
		p.pos++
	}
	if c := p.peek(); c == 'N' || c == 'I' {
		return p.bareSpecial(depth, start)
	}
	intStart := p.pos
	if !p.digits() {
		return p.unexpected("a digit")
	}
	if p.data[intStart] == '0' && p.pos-intStart > 1 {
		return p.syntaxErrAt(start, fmt.Sprintf("invalid number %s (leading zero)", shorten(string(p.data[start:p.pos]))))
	}
	isInt := true
	if p.peek() == '.' {
		isInt = false
		p.pos++
		if !p.digits() {
			return p.unexpected("a digit after the decimal point")
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		isInt = false
		p.pos++
		if c := p.peek(); c == '+' || c == '-' {
			p.pos++
		}
		if !p.digits() {
			return p.unexpected("a digit in the exponent")
		}
	}
	// The conversions to string below do not escape, so they need no allocation.
	f, err := strconv.ParseFloat(string(p.data[start:p.pos]), 64) // syntax checked; an underflow gives 0
	if err != nil {
		return p.elemErr("is %s, beyond the float64 range", p.text(start))
	}
	var iv int
	if isInt {
		i, err := strconv.ParseInt(string(p.data[start:p.pos]), 10, strconv.IntSize)
		if err != nil {
			isInt = false // beyond int's range: a real, as in CmdStan
		} else {
			iv = int(i)
			f = float64(iv) // -0 is the integer 0
		}
	}
	return p.leaf(depth, f, isInt, iv, start)
}

// digits consumes a run of decimal digits and reports whether there was one.
func (p *stanParser) digits() bool {
	start := p.pos
	for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
		p.pos++
	}
	return p.pos > start
}

// bareSpecial reads NaN, Inf or Infinity (unquoted) after an optional minus at start.
func (p *stanParser) bareSpecial(depth, start int) error {
	for _, word := range []string{"Infinity", "Inf", "NaN"} {
		if !strings.HasPrefix(string(p.data[p.pos:min(len(p.data), p.pos+len(word))]), word) {
			continue
		}
		if word == "NaN" && p.pos > start {
			break // no signed NaN
		}
		p.pos += len(word)
		if p.pos < len(p.data) && isWordByte(p.data[p.pos]) {
			break // "Infinityx", "NaNa": not a token
		}
		f, _ := stanSpecial(string(p.data[start:p.pos]))
		return p.leaf(depth, f, false, 0, start)
	}
	p.pos = start
	return p.unexpected("a value")
}

// stanSpecial returns the value of a name of NaN or an infinity: nan, inf or
// infinity in any letter case, inf and infinity with an optional sign.
func stanSpecial(s string) (float64, bool) {
	sign := 1.0
	body := s
	if len(body) > 0 && (body[0] == '+' || body[0] == '-') {
		if body[0] == '-' {
			sign = -1
		}
		body = body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		return math.Inf(int(sign)), true
	case "nan":
		if len(body) == len(s) {
			return math.NaN(), true
		}
	}
	return 0, false
}

// kind checks that an element of kind k may stand at depth (every element at one
// depth is of the kind of the first), and records the kind of a new depth. what
// describes the element for the message ("an array", "2.5").
func (p *stanParser) kind(depth int, k byte, what string) error {
	if depth < len(p.kinds) {
		if p.kinds[depth] == k {
			return nil
		}
		want := "an array"
		if k == stanKindArray {
			want = "a number"
		}
		return p.elemErr("is %s, want %s as element %s", what, want, indexString(make([]int, depth)))
	}
	p.kinds = append(p.kinds, k)
	return nil
}

// leaf records a number at depth, written in p.data[start:p.pos].
func (p *stanParser) leaf(depth int, f float64, isInt bool, iv int, start int) error {
	if depth >= len(p.kinds) || p.kinds[depth] != stanKindNumber { // checked first: p.text allocates
		if err := p.kind(depth, stanKindNumber, p.text(start)); err != nil {
			return err
		}
	}
	v := p.v
	i := len(v.vals)
	v.vals = append(v.vals, f)
	if isInt && v.firstNonInt < 0 {
		v.ints = append(v.ints, iv)
	} else if v.firstNonInt < 0 {
		v.firstNonInt, v.nonIntText, v.ints = i, p.text(start), nil
	}
	if (math.IsNaN(f) || math.IsInf(f, 0)) && v.firstNonFinite < 0 {
		v.firstNonFinite, v.nonFiniteText = i, p.text(start)
	}
	return nil
}

// str reads a JSON string at p.pos (which holds '"') and returns it decoded.
func (p *stanParser) str() (string, error) {
	start := p.pos
	p.pos++
	var b strings.Builder
	for {
		if p.pos >= len(p.data) {
			return "", p.syntaxErrAt(start, "unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", p.syntaxErr(fmt.Sprintf("control character %#02x in a string", c))
		case c == '\\':
			if p.pos+1 >= len(p.data) {
				return "", p.syntaxErrAt(start, "unterminated string")
			}
			e := p.data[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.syntaxErr("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					r2 := utf8.RuneError
					save := p.pos
					if p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
						p.pos += 2
						if lo, ok := p.hex4(); ok {
							r2 = utf16.DecodeRune(r, lo)
						}
						if r2 == utf8.RuneError {
							p.pos = save // a lone surrogate; the next escape stands alone
						}
					}
					r = r2
				}
				b.WriteRune(r)
			default:
				if e < 0x20 || e >= 0x7f {
					return "", p.syntaxErrAt(p.pos-2, fmt.Sprintf("invalid escape: backslash before byte %#02x", e))
				}
				return "", p.syntaxErrAt(p.pos-2, fmt.Sprintf("invalid escape \\%c in a string", e))
			}
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", p.syntaxErr("invalid UTF-8 in a string")
			}
			b.Write(p.data[p.pos : p.pos+size])
			p.pos += size
		}
	}
}

// hex4 reads the four hex digits of a \u escape.
func (p *stanParser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		switch {
		case isDigit(c):
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

func (p *stanParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the byte at p.pos, or 0 at the end of the input.
func (p *stanParser) peek() byte {
	if p.pos < len(p.data) {
		return p.data[p.pos]
	}
	return 0
}

// elemErr returns an error about the current element of the current variable.
func (p *stanParser) elemErr(format string, args ...any) error {
	return fmt.Errorf("frames: %s: %q: %s "+format, append([]any{p.src, p.name, elementName(p.path)}, args...)...)
}

// raggedErr reports an array at depth with n elements where the first had want.
func (p *stanParser) raggedErr(depth, n, want int) error {
	what := "values"
	if depth+1 < len(p.kinds) && p.kinds[depth+1] == stanKindArray {
		what = "elements"
	}
	count := strconv.Itoa(n) + " " + what
	if n == 1 {
		count = "1 " + strings.TrimSuffix(what, "s")
	}
	if depth == 1 {
		r := p.path[0]
		if r == 1 {
			return fmt.Errorf("frames: %s: %q: row 1 has %s, row 0 has %d", p.src, p.name, count, want)
		}
		return fmt.Errorf("frames: %s: %q: row %d has %s, rows 0–%d have %d", p.src, p.name, r, count, r-1, want)
	}
	return fmt.Errorf("frames: %s: %q: element %s has %s, element %s has %d", p.src, p.name,
		indexString(p.path[:depth]), count, indexString(make([]int, depth)), want)
}

// syntaxErr returns an error at p.pos.
func (p *stanParser) syntaxErr(msg string) error { return p.syntaxErrAt(p.pos, msg) }

// syntaxErrAt returns an error naming the 1-based line and column of byte offset at.
func (p *stanParser) syntaxErrAt(at int, msg string) error {
	at = min(max(at, 0), len(p.data))
	line := 1 + strings.Count(string(p.data[:at]), "\n")
	col := at - strings.LastIndexByte(string(p.data[:at]), '\n')
	return fmt.Errorf("frames: %s:%d:%d: %s", p.src, line, col, msg)
}

// unexpected reports the byte at p.pos (or the end of input) where want was expected.
func (p *stanParser) unexpected(want string) error {
	if p.pos >= len(p.data) {
		return p.syntaxErr("unexpected end of input, want " + want)
	}
	return p.syntaxErr(fmt.Sprintf("invalid character %s, want %s", printable(p.data[p.pos]), want))
}

// describeStart names the JSON value that starts with c, for messages.
func describeStart(c byte) string {
	switch {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '{':
		return "an object"
	}
	return "character " + printable(c)
}

// printable quotes a byte for a message: 'x', or its hex code.
func printable(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	return fmt.Sprintf("%#02x", c)
}

// text returns the element written in p.data[start:p.pos], shortened, for messages.
func (p *stanParser) text(start int) string { return shorten(string(p.data[start:p.pos])) }

// shorten keeps messages short when a number or a string is long.
func shorten(s string) string {
	const maxLen = 40
	if len(s) <= maxLen {
		return s
	}
	cut := maxLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// elementName names the element at path: "value" for a scalar, "element [2][1]" inside
// an array.
func elementName(path []int) string {
	if len(path) == 0 {
		return "value"
	}
	return "element " + indexString(path)
}

// indexString writes an index path as [2][1].
func indexString(path []int) string {
	var b strings.Builder
	for _, i := range path {
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(']')
	}
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isWordByte(c byte) bool {
	return c == '_' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
