package pricing

import (
	"math"
	"math/bits"
	"strconv"
)

// Cost is an amount of US dollars in femto-dollars (1e-15 USD), so that a
// request's cost is exact: a price of up to nine decimals in USD per
// million tokens is a whole number of femto-dollars per token, and a
// count of tokens times it is exact too.
type Cost int64

// femto is one dollar in Costs.
const femto = 1e15

// Rate is a price per token, in femto-dollars (USD per million tokens
// times 1e9).
type Rate int64

// maxPerMillion bounds a price: past it a typo, not a price (the dearest
// list price is well under $1,000 per million tokens).
const maxPerMillion = 1e6

// RateOf is the Rate of a price in USD per million tokens, rounded to the
// nearest femto-dollar per token (nine decimals of the price); false for
// what is not a price (negative, not finite, absurdly large).
func RateOf(perMillion float64) (Rate, bool) {
	if math.IsNaN(perMillion) || perMillion < 0 || perMillion > maxPerMillion {
		return 0, false
	}
	return Rate(math.Round(perMillion * 1e9)), true
}

// PerMillion is the rate in USD per million tokens.
func (r Rate) PerMillion() float64 { return float64(r) / 1e9 }

// String is the rate in USD per million tokens, exactly.
func (r Rate) String() string { return fixed(int64(r), 9) }

// times is n tokens at rate r; it saturates rather than overflows (more
// than nine thousand dollars a request is no real bill).
func (r Rate) times(n int64) Cost {
	if n <= 0 || r <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(n), uint64(r))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return Cost(lo)
}

// scaled is r times num/den, rounded: a price derived from another.
func (r Rate) scaled(num, den int64) Rate { return Rate((int64(r)*num + den/2) / den) }

// USD is c in dollars: the nearest float64, which Decimal writes back as c
// exactly while c is under 2^53 femto-dollars (about $9).
func (c Cost) USD() float64 { return float64(c) / femto }

// String is c in dollars as an exact decimal: "0.031509".
func (c Cost) String() string { return fixed(int64(c), 15) }

// fixed writes n / 10^places as a decimal without trailing zeros, in one
// allocation (a cost header goes out with every answer): the digits are
// written right to left into a buffer.
func fixed(n int64, places int) string {
	var buf [48]byte
	u := uint64(n)
	if n < 0 {
		u = -u
	}
	end, i := len(buf), len(buf)
	for range places {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
	}
	for end > i && buf[end-1] == '0' {
		end-- // trailing zeros of the fraction
	}
	i--
	buf[i] = '.'
	if end == i+1 {
		end = i // no fraction, no point
	}
	for {
		i--
		buf[i] = byte('0' + u%10)
		if u /= 10; u == 0 {
			break
		}
	}
	if n < 0 {
		i--
		buf[i] = '-'
	}
	return string(buf[i:end])
}

// Decimal writes a number as a plain decimal without the noise of binary
// floating point: 2.8000000000000003 is "2.8", 0.000008700000000000001
// "0.0000087". It keeps 15 significant digits, all that a float64 holds
// for certain, so a sum of costs read back from a database shows the
// decimal it stands for. Every page, header and answer writes money and
// prices with it (or with Cost.String, which is exact).
func Decimal(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "0"
	}
	rounded, err := strconv.ParseFloat(strconv.FormatFloat(f, 'e', 14, 64), 64)
	if err != nil {
		rounded = f
	}
	if rounded == 0 {
		return "0" // and not "-0"
	}
	return strconv.FormatFloat(rounded, 'f', -1, 64)
}
