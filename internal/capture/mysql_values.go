package capture

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

var errShort = errors.New("packet too short")

// reader walks a packet's payload.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || len(r.b) < n {
		r.err = errShort
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) byte1() byte {
	if v := r.take(1); v != nil {
		return v[0]
	}
	return 0
}

func (r *reader) uint(n int) uint64 {
	v := r.take(n)
	var x uint64
	for i := len(v) - 1; i >= 0; i-- {
		x = x<<8 | uint64(v[i])
	}
	return x
}

// lenenc reads a length-encoded integer; null is true for 0xFB (a NULL
// value in a text row).
func (r *reader) lenenc() (n uint64, null bool) {
	switch c := r.byte1(); {
	case c < 0xfb:
		return uint64(c), false
	case c == 0xfb:
		return 0, true
	case c == 0xfc:
		return r.uint(2), false
	case c == 0xfd:
		return r.uint(3), false
	default:
		return r.uint(8), false
	}
}

func (r *reader) lenencBytes() []byte {
	n, _ := r.lenenc()
	if n > uint64(len(r.b)) {
		r.err = errShort
		return nil
	}
	return r.take(int(n))
}

func (r *reader) nulString() string {
	for i, c := range r.b {
		if c == 0 {
			s := string(r.b[:i])
			r.b = r.b[i+1:]
			return s
		}
	}
	s := string(r.b)
	r.b = nil
	return s
}

// MySQL's column types, as COM_STMT_EXECUTE sends them.
const (
	myTiny      = 0x01
	myShort     = 0x02
	myLong      = 0x03
	myFloat     = 0x04
	myDouble    = 0x05
	myNull      = 0x06
	myTimestamp = 0x07
	myLongLong  = 0x08
	myInt24     = 0x09
	myDate      = 0x0a
	myTime      = 0x0b
	myDateTime  = 0x0c
	myYear      = 0x0d
)

// binaryValue reads one parameter of COM_STMT_EXECUTE as a JSON value.
func binaryValue(r *reader, typ byte, unsigned bool) any {
	intOf := func(n int) any {
		x := r.uint(n)
		if unsigned {
			return x
		}
		shift := 64 - 8*n
		return int64(x<<shift) >> shift
	}
	switch typ {
	case myNull:
		return nil
	case myTiny:
		return intOf(1)
	case myShort, myYear:
		return intOf(2)
	case myLong, myInt24:
		return intOf(4)
	case myLongLong:
		return intOf(8)
	case myFloat:
		return floatValue(float64(math.Float32frombits(uint32(r.uint(4)))))
	case myDouble:
		return floatValue(math.Float64frombits(r.uint(8)))
	case myDate, myDateTime, myTimestamp:
		return dateValue(r)
	case myTime:
		return timeValue(r)
	}
	return bytesValue(r.lenencBytes())
}

func floatValue(f float64) any {
	v, _ := finite(f)
	return v
}

func bytesValue(b []byte) any {
	if utf8.Valid(b) {
		return string(b)
	}
	return map[string]string{"hex": hex.EncodeToString(b)}
}

func dateValue(r *reader) any {
	p := &reader{b: r.take(int(r.byte1()))}
	y, mo, d := p.uint(2), p.byte1(), p.byte1()
	h, mi, s := p.byte1(), p.byte1(), p.byte1()
	us := p.uint(4)
	v := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", y, mo, d, h, mi, s)
	if us != 0 {
		v += fmt.Sprintf(".%06d", us)
	}
	return v
}

func timeValue(r *reader) any {
	p := &reader{b: r.take(int(r.byte1()))}
	neg, days := p.byte1(), p.uint(4)
	h, mi, s := uint64(p.byte1())+24*days, p.byte1(), p.byte1()
	us := p.uint(4)
	v := fmt.Sprintf("%02d:%02d:%02d", h, mi, s)
	if us != 0 {
		v += fmt.Sprintf(".%06d", us)
	}
	if neg == 1 {
		v = "-" + v
	}
	return v
}

// executeParams reads COM_STMT_EXECUTE's parameters; types are the
// statement's from an earlier execute when this one does not resend
// them.
func executeParams(r *reader, n int, types []byte) ([]any, []byte, error) {
	if n == 0 {
		return nil, types, nil
	}
	nulls := r.take((n + 7) / 8)
	if r.byte1() == 1 {
		types = append([]byte(nil), r.take(2*n)...)
	}
	if r.err != nil || len(types) != 2*n {
		return nil, types, fmt.Errorf("COM_STMT_EXECUTE: parameter types missing")
	}
	out := make([]any, n)
	for i := range n {
		if nulls[i/8]&(1<<(i%8)) != 0 {
			continue
		}
		out[i] = binaryValue(r, types[2*i], types[2*i+1]&0x80 != 0)
	}
	if r.err != nil {
		return nil, types, fmt.Errorf("COM_STMT_EXECUTE: %v", r.err)
	}
	return out, types, nil
}

func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
