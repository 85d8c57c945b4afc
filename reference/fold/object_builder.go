package fold

// objectBuilder assembles a JSON object from raw member values; a nil value is skipped and a
// repeated key keeps its last value. The bytes need not be canonical: the State encoder
// canonicalises every value it prints.
type objectBuilder struct {
	keys []string
	vals [][]byte
}

func newObjectBuilder() *objectBuilder { return &objectBuilder{} }

// add appends a member whose key is known to be new.
func (b *objectBuilder) add(key string, val []byte) {
	if val != nil {
		b.keys = append(b.keys, key)
		b.vals = append(b.vals, val)
	}
}

// set assigns a member, replacing an earlier one of the same key.
func (b *objectBuilder) set(key string, val []byte) {
	for i, k := range b.keys {
		if k == key {
			b.vals[i] = val
			return
		}
	}
	b.add(key, val)
}

func (b *objectBuilder) bytes() []byte {
	n := 2
	for i, k := range b.keys {
		n += len(k) + len(b.vals[i]) + 4
	}
	out := make([]byte, 0, n)
	out = append(out, '{')
	for i, k := range b.keys {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendQuoted(out, k)
		out = append(out, ':')
		out = append(out, trimRaw(b.vals[i])...)
	}
	return append(out, '}')
}
