package htmltable

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// JS is the table script. Pages inline it in a <script> element (allowed
// by [ScriptHash]) or serve it as a file.
//
//go:embed table.js
var JS string

// CSS is the table stylesheet.
//
//go:embed table.css
var CSS string

// ScriptHash is the Content-Security-Policy source expression of JS
// inlined verbatim in a <script> element: 'sha256-...'.
var ScriptHash = func() string {
	sum := sha256.Sum256([]byte(JS))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// Kind says how the values of a column are shown and sorted.
type Kind string

// Column kinds.
const (
	// Text is free text; long text wraps.
	Text Kind = "text"
	// Num is a number, right-aligned and sorted numerically; a missing or
	// null value shows Column.Null.
	Num Kind = "num"
	// URL is one URL on one line, ellipsed, the full value in the title.
	URL Kind = "url"
	// Line is a short text such as a page title on one line, ellipsed,
	// the full value in the title.
	Line Kind = "line"
	// Code is an identifier such as a finding ID.
	Code Kind = "code"
	// Severity is "error", "warning" or "notice", sorted by rank.
	Severity Kind = "sev"
	// List is a list of identifiers.
	List Kind = "list"
	// URLs is a list of URLs, one per line, each ellipsed.
	URLs Kind = "urls"
)

// Column is one column of a Table.
type Column struct {
	// Key names the field of the row objects shown in the column.
	Key   string
	Label string
	Kind  Kind
	// Hint names a field of the row shown as the cell's title (a reason,
	// such as why a score is missing).
	Hint string
	// Null is shown for a missing or null value; "—" by default.
	Null string
	// Digits is the number of decimals of a Num column.
	Digits int
	// Class is an extra class of the column's header and cells.
	Class string
	// Link, for a URL column, makes each cell a link to Link followed by
	// the cell's value, query-escaped (a detail view of the row).
	Link string
}

// Row is one row of a table: JSON field names to values.
type Row = map[string]any

// Table is a sortable, filterable, paginated table.
type Table struct {
	// Name is the key of the rows in the data block and the element's id
	// ("rt-" + Name).
	Name string
	// Label names the table for assistive technology ("Pages").
	Label   string
	Columns []Column
	// Rows are the rows in their default order.
	Rows []Row
	// PageSize is the number of rows shown at once; 100 by default.
	PageSize int
	// Search adds a text filter over every text, URL and code column.
	Search bool
	// SevKey and IDKey name the row fields filtered by the severity and the
	// finding ID selects (a string or a list of strings); "" for none.
	SevKey, IDKey string
	// Empty is shown when the table has no rows.
	Empty string
}

// DefaultPageSize is the PageSize of a Table that sets none.
const DefaultPageSize = 100

// ReportPolicy is the Content-Security-Policy of a self-contained HTML
// report built on these tables (the site report, the page report), which
// the report also declares in a <meta> element: its own inline script
// (allowed by ScriptHash) and styles only, no other resource. A server
// that serves a report adds the directives a <meta> policy cannot carry
// (sandbox allow-scripts, frame-ancestors).
var ReportPolicy = "default-src 'none'; script-src " + ScriptHash +
	"; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

// When formats a report's time for people, in UTC ("-" for the zero time).
func When(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04 MST")
}

// ByteSize formats n bytes for people: "1.2 MB", "3.4 KB", "512 B".
func ByteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Data returns the rows of tables as the JSON object of a <script
// type="application/json" id="rt-data"> block. The JSON escapes <, > and
// &, so crawled text cannot end the element.
func Data(tables ...*Table) (template.JS, error) {
	var b []byte
	b = append(b, '{')
	for i, t := range tables {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, t.Name)
		b = append(b, ':', '[')
		for j, r := range t.Rows {
			if j > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendRow(b, r); err != nil {
				return "", err
			}
		}
		b = append(b, ']')
	}
	b = append(b, '}')
	return template.JS(b), nil
}

// appendRow appends r as a JSON object, its keys sorted. It is the
// json.Marshal of r, without reflection for the common value types.
func appendRow(b []byte, r Row) ([]byte, error) {
	keys := slices.Sorted(maps.Keys(r))
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		switch v := r[k].(type) {
		case nil:
			b = append(b, "null"...)
		case string:
			b = appendString(b, v)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case []string:
			if v == nil {
				b = append(b, "null"...)
				break
			}
			b = append(b, '[')
			for i, s := range v {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendString(b, s)
			}
			b = append(b, ']')
		default:
			j, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("htmltable: field %s: %w", k, err)
			}
			b = append(b, j...)
		}
	}
	return append(b, '}'), nil
}

// appendString appends s as a JSON string escaped as json.Marshal does:
// <, > and & as \u escapes (so no "</script" or "<!--" can appear), the
// line and paragraph separators escaped, invalid UTF-8 replaced.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

var sevOptions = []string{"error", "warning", "notice"}

type tableView struct {
	*Table
	First   []Row
	IDs     []string
	From    int
	To      int
	Page    int
	Pages   int
	NumRows int
}

// HTML returns the table's markup: controls, header and the first page of
// rows. The page must also carry the rows ([Data]), the stylesheet and the
// script for sorting, filtering and paging.
func (t *Table) HTML() (template.HTML, error) {
	size := t.PageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	v := tableView{Table: t, First: t.Rows[:min(len(t.Rows), size)], NumRows: len(t.Rows), Pages: max(1, (len(t.Rows)+size-1)/size), Page: 1}
	if len(t.Rows) > 0 {
		v.From, v.To = 1, len(v.First)
	}
	if t.IDKey != "" {
		seen := map[string]bool{}
		for _, r := range t.Rows {
			for _, id := range stringsOf(r[t.IDKey]) {
				if !seen[id] {
					seen[id] = true
					v.IDs = append(v.IDs, id)
				}
			}
		}
		slices.SortFunc(v.IDs, cmp.Compare)
	}
	var buf bytes.Buffer
	if err := tableTemplate.Execute(&buf, v); err != nil {
		return "", fmt.Errorf("htmltable: %w", err)
	}
	return template.HTML(buf.String()), nil
}

// stringsOf returns v as a list of strings: a string, or the strings of a
// list.
func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// cellText formats a scalar value of column c as the script does.
func cellText(c Column, v any) string {
	null := c.Null
	if null == "" {
		null = "—"
	}
	switch x := v.(type) {
	case nil:
		return null
	case string:
		if x == "" && c.Kind == Num {
			return null
		}
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', c.Digits, 64)
	case int:
		if c.Digits > 0 {
			return strconv.FormatFloat(float64(x), 'f', c.Digits, 64)
		}
		return strconv.Itoa(x)
	case int64:
		return cellText(c, int(x))
	case float32:
		return cellText(c, float64(x))
	case bool:
		return strconv.FormatBool(x)
	}
	// A pointer (a nullable *int score or depth) is its value, or null.
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return null
		}
		return cellText(c, rv.Elem().Interface())
	}
	return fmt.Sprint(v)
}

var tableTemplate = template.Must(template.New("table").Funcs(template.FuncMap{
	"text": cellText,
	"list": stringsOf,
	"hint": func(c Column, r Row) string {
		if c.Hint == "" {
			return ""
		}
		s, _ := r[c.Hint].(string)
		return s
	},
	"get":  func(r Row, k string) any { return r[k] },
	"qesc": url.QueryEscape,
	"sevs": func() []string { return sevOptions },
}).Parse(`<div class="rt" id="rt-{{.Name}}" data-rows="{{.Name}}" data-page-size="{{if .PageSize}}{{.PageSize}}{{else}}100{{end}}"
{{- with .SevKey}} data-sev-key="{{.}}"{{end}}{{with .IDKey}} data-id-key="{{.}}"{{end}}>
<div class="rt-controls" hidden>
{{- if .Search}}<input type="search" class="rt-q" placeholder="Filter by URL or text" aria-label="Filter {{.Label}} by URL or text">{{end}}
{{- if .SevKey}}<select class="rt-sev" aria-label="Filter {{.Label}} by severity"><option value="">All severities</option>{{range sevs}}<option value="{{.}}">{{.}}</option>{{end}}</select>{{end}}
{{- if .IDKey}}<select class="rt-id" aria-label="Filter {{.Label}} by finding ID"><option value="">All findings</option>{{range .IDs}}<option value="{{.}}">{{.}}</option>{{end}}</select>{{end}}
</div>
<table class="rt-table" aria-label="{{.Label}}">
<thead><tr>{{range .Columns}}<th scope="col" class="k-{{.Kind}}{{with .Class}} {{.}}{{end}}" data-key="{{.Key}}" data-kind="{{.Kind}}"{{with .Hint}} data-hint="{{.}}"{{end}}{{with .Null}} data-null="{{.}}"{{end}}{{with .Digits}} data-digits="{{.}}"{{end}}{{with .Class}} data-class="{{.}}"{{end}}{{with .Link}} data-link="{{.}}"{{end}}>{{.Label}}</th>{{end}}</tr></thead>
<tbody>{{$cols := .Columns}}{{range $r := .First}}<tr>{{range $c := $cols}}{{$v := get $r $c.Key}}
{{- if eq $c.Kind "url"}}<td class="k-url{{with $c.Class}} {{.}}{{end}}" data-label="{{$c.Label}}" title="{{text $c $v}}">{{if $c.Link}}<a href="{{$c.Link}}{{qesc (text $c $v)}}">{{text $c $v}}</a>{{else}}{{text $c $v}}{{end}}</td>
{{- else if eq $c.Kind "line"}}<td class="k-line{{with $c.Class}} {{.}}{{end}}" data-label="{{$c.Label}}" title="{{text $c $v}}">{{text $c $v}}</td>
{{- else if eq $c.Kind "code"}}<td class="k-code{{with $c.Class}} {{.}}{{end}}" data-label="{{$c.Label}}"><code>{{text $c $v}}</code></td>
{{- else if eq $c.Kind "sev"}}<td class="k-sev{{with $c.Class}} {{.}}{{end}}" data-label="{{$c.Label}}"><span class="rt-badge rt-{{text $c $v}}">{{text $c $v}}</span></td>
{{- else if eq $c.Kind "list"}}<td class="k-list{{with $c.Class}} {{.}}{{end}}" data-label="{{$c.Label}}">{{range list $v}}<code>{{.}}</code> {{end}}</td>
{{- else if eq $c.Kind "urls"}}<td class="k-urls{{with $c.Class}} {{.}}{{end}}" data-label="{{$c.Label}}">{{range list $v}}<span class="rt-u" title="{{.}}">{{.}}</span>{{end}}</td>
{{- else}}<td class="k-{{$c.Kind}}{{with $c.Class}} {{.}}{{end}}" data-label="{{$c.Label}}"{{with hint $c $r}} title="{{.}}"{{end}}>{{text $c $v}}</td>
{{- end}}{{end}}</tr>
{{end}}</tbody>
</table>
{{if not .NumRows}}<p class="rt-empty">{{if .Empty}}{{.Empty}}{{else}}None.{{end}}</p>{{end}}
<div class="rt-pager"><span class="rt-count" aria-live="polite">{{if .NumRows}}{{.From}}–{{.To}} of {{.NumRows}}{{end}}</span>
<span class="rt-nav" hidden><button type="button" class="rt-prev" aria-label="Previous rows">‹ Previous</button> <span class="rt-page">{{.Page}} / {{.Pages}}</span> <button type="button" class="rt-next" aria-label="Next rows">Next ›</button></span></div>
</div>`))
