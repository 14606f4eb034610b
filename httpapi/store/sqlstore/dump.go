package sqlstore

import (
	"bytes"
	"context"
	"fmt"
)

// Dump writes every row of every table as text, one row a line, with
// byte columns written raw: what a database dump would show. Tests grep it
// to prove no secret is stored in the clear.
func (s *Store) Dump(ctx context.Context) ([]byte, error) {
	var buf bytes.Buffer
	for _, t := range tables {
		rows, err := s.db.QueryContext(ctx, `SELECT * FROM `+t)
		if err != nil {
			return nil, mapErr("dump "+t, err)
		}
		cols, err := rows.Columns()
		if err != nil {
			rows.Close()
			return nil, mapErr("dump "+t, err)
		}
		fmt.Fprintf(&buf, "-- %s %v\n", t, cols)
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return nil, mapErr("dump "+t, err)
			}
			for i, v := range vals {
				if i > 0 {
					buf.WriteByte('\t')
				}
				switch v := v.(type) {
				case nil:
					buf.WriteString("NULL")
				case []byte:
					buf.Write(v)
				default:
					fmt.Fprint(&buf, v)
				}
			}
			buf.WriteByte('\n')
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, mapErr("dump "+t, err)
		}
	}
	return buf.Bytes(), nil
}
