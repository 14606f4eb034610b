package sqldb

import (
	"strconv"
	"strings"
)

// Dollar rewrites the ? placeholders of query as $1, $2 ... for
// PostgreSQL. The stores' queries have no ? inside string literals.
func Dollar(query string) string {
	var b strings.Builder
	b.Grow(len(query) + 8)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}
