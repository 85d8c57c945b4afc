package fold

import "slices"

// radixFrom is the number of keys from which sortBytewise sorts by radix: below it the
// comparison sort is as fast and allocates nothing.
const radixFrom = 256

// sortBytewise sorts keys in byte order, as slices.Sort does. A state's frames and decisions are
// objects of tens of thousands of keys, where a comparison sort spends a fifth of the state's
// encoding comparing strings: from radixFrom keys on, a least-significant-digit radix sort orders
// them by their first 8 bytes (the bytes that vary, one pass each), and a comparison sort orders
// each run of keys whose first 8 bytes are equal.
func sortBytewise(keys []string) {
	if len(keys) < radixFrom {
		slices.Sort(keys)
		return
	}
	type item struct {
		prefix uint64
		key    string
	}
	buf := make([]item, 2*len(keys))
	a, b := buf[:len(keys)], buf[len(keys):]
	all, some := ^uint64(0), uint64(0)
	for i, k := range keys {
		p := prefix8(k)
		a[i] = item{p, k}
		all &= p
		some |= p
	}
	varies := all ^ some // the bits that differ between some two prefixes
	for shift := uint(0); shift < 64; shift += 8 {
		if (varies>>shift)&0xff == 0 {
			continue
		}
		var pos [256]int
		for _, it := range a {
			pos[byte(it.prefix>>shift)]++
		}
		sum := 0
		for d, n := range pos {
			pos[d], sum = sum, sum+n
		}
		for _, it := range a {
			d := byte(it.prefix >> shift)
			b[pos[d]] = it
			pos[d]++
		}
		a, b = b, a
	}
	for i := 0; i < len(a); {
		j := i + 1
		for j < len(a) && a[j].prefix == a[i].prefix {
			j++
		}
		for n := i; n < j; n++ {
			keys[n] = a[n].key
		}
		if j-i > 1 {
			slices.Sort(keys[i:j])
		}
		i = j
	}
}

// prefix8 is the first 8 bytes of k as a big-endian number, zero-padded: prefix8(x) < prefix8(y)
// implies x < y in byte order, and equal prefixes leave the order to the rest of the keys.
func prefix8(k string) uint64 {
	var p uint64
	for i := range min(len(k), 8) {
		p |= uint64(k[i]) << (56 - 8*i)
	}
	return p
}
