package logs

import (
	"math"
	"math/bits"
)

// hllPrecision is the HyperLogLog precision: 2^14 one-byte registers
// (16 KiB per sketch), a standard error of 1.04/sqrt(2^14) = 0.81%.
const hllPrecision = 14

// DistinctError is the relative standard error of the approximate
// distinct counts (Estimate.Approximate): about two thirds of estimates
// fall within this fraction of the true count, 95% within twice it.
const DistinctError = 0.0081

// hll is a HyperLogLog sketch (Flajolet et al. 2007, with the linear
// counting correction for small cardinalities). It is exact in practice
// up to a few hundred values and within DistinctError beyond.
type hll struct {
	reg []uint8
}

func newHLL() *hll { return &hll{reg: make([]uint8, 1<<hllPrecision)} }

func (h *hll) add(x uint64) {
	idx := x >> (64 - hllPrecision)
	w := x<<hllPrecision | 1<<(hllPrecision-1)
	rho := uint8(bits.LeadingZeros64(w) + 1)
	if rho > h.reg[idx] {
		h.reg[idx] = rho
	}
}

func (h *hll) estimate() int64 {
	m := float64(len(h.reg))
	sum, zeros := 0.0, 0
	for _, r := range h.reg {
		sum += 1 / float64(uint64(1)<<r)
		if r == 0 {
			zeros++
		}
	}
	alpha := 0.7213 / (1 + 1.079/m)
	e := alpha * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros))
	}
	return int64(e + 0.5)
}

// hashString is FNV-1a with a 64-bit finaliser (splitmix64), so that the
// sketch's bits are uniform; deterministic across runs.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}
