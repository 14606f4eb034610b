package local

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/seo"
)

// Format is a keyword export format Import reads.
type Format string

// Import formats. The zero Format asks Import to detect it from the header.
const (
	// KeywordPlanner is a Google Ads Keyword Planner export ("Keyword
	// Stats ..." download): UTF-16LE tab-separated as Google serves it, or
	// UTF-8 comma-separated. Keywords get Avg. monthly searches as Volume,
	// the Searches: <month> columns as Monthly and Competition (indexed
	// value) as PaidCompetition.
	KeywordPlanner Format = "keyword-planner"
	// SearchConsole is a Search Console Performance export (Queries.csv).
	// Keywords are stored without a volume: clicks, impressions, CTR and
	// position go to Keyword.SearchConsole.
	SearchConsole Format = "search-console"
	// Semrush is a Semrush Keyword Magic Tool export. Its Keyword
	// Difficulty is stored with DifficultyMethod "imported:semrush".
	Semrush Format = "semrush"
)

// Import limits.
const (
	// MaxImportBytes is the largest file Import reads.
	MaxImportBytes = 1 << 30
	// MaxImportRows is the most data rows Import reads.
	MaxImportRows = 5_000_000
	// MaxListedErrors is how many bad rows an ImportReport lists.
	MaxListedErrors = 100
	// maxPreamble is how many records may precede the header.
	maxPreamble = 50
)

// ImportReport says what Import did.
type ImportReport struct {
	// Format is the format read (detected when none was given).
	Format Format `json:"format"`
	// Imported counts the rows stored.
	Imported int `json:"imported"`
	// Skipped counts the bad rows left out.
	Skipped int `json:"skipped"`
	// Errors lists the first MaxListedErrors bad rows.
	Errors []LineError `json:"errors,omitempty"`
}

// LineError is one bad row of an imported file.
type LineError struct {
	// Line is the 1-based line number in the file.
	Line int `json:"line"`
	// Reason says what is wrong with the row.
	Reason string `json:"reason"`
}

func (e LineError) String() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// parser turns one data record into a row.
type parser func(rec []string) (row, error)

// Import reads a keyword export for loc and stores its good rows in one
// transaction; bad rows are counted and listed by line. A file that is not
// text, has no recognised header, or exceeds MaxImportBytes or
// MaxImportRows is an *seo.InputError for the field "file" and nothing is
// stored. format zero detects the format from the header.
func (s *Store) Import(ctx context.Context, r io.Reader, format Format, loc seo.Locale) (*ImportReport, error) {
	if err := keywords.ValidateLocale(loc); err != nil {
		return nil, err
	}
	switch format {
	case "", KeywordPlanner, SearchConsole, Semrush:
	default:
		return nil, &seo.InputError{Field: "format", Value: string(format), Reason: "must be keyword-planner, search-console or semrush"}
	}
	lim := &limitReader{r: r, n: MaxImportBytes}
	text, err := decode(lim)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(text.r)
	cr.Comma = text.comma
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true

	bad := func(reason string) error { return &seo.InputError{Field: "file", Reason: reason} }
	var header []string
	var kind Format
	for i := 0; i < maxPreamble; i++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if lim.over {
			return nil, bad(fmt.Sprintf("larger than %d bytes", MaxImportBytes))
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("local: import: %w", err)
		}
		if k := detect(rec); k != "" {
			header, kind = slicesClone(rec), k
			break
		}
	}
	if header == nil {
		return nil, bad("no recognised header: expected a Keyword Planner, Search Console (Queries.csv) or Semrush export")
	}
	if format != "" && format != kind {
		return nil, bad(fmt.Sprintf("header is a %s export, not %s", kind, format))
	}
	parse, err := newParser(kind, header)
	if err != nil {
		return nil, bad(err.Error())
	}
	mode := metrics
	if kind == SearchConsole {
		mode = searchConsole
	}
	rep := &ImportReport{Format: kind}
	fail := func(line int, reason string) {
		rep.Skipped++
		if len(rep.Errors) < MaxListedErrors {
			rep.Errors = append(rep.Errors, LineError{Line: line, Reason: reason})
		}
	}
	rows := 0
	err = s.write(ctx, loc, func(w *writer) error {
		for {
			rec, err := cr.Read()
			if lim.over {
				return bad(fmt.Sprintf("larger than %d bytes", MaxImportBytes))
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			var pe *csv.ParseError
			if errors.As(err, &pe) && !errors.Is(err, csv.ErrFieldCount) {
				fail(pe.StartLine, "malformed CSV: "+pe.Err.Error())
				continue
			}
			if err != nil && !errors.Is(err, csv.ErrFieldCount) {
				return fmt.Errorf("local: import: %w", err)
			}
			line, _ := cr.FieldPos(0)
			if blank(rec) {
				continue
			}
			if rows++; rows > MaxImportRows {
				return bad(fmt.Sprintf("more than %d rows", MaxImportRows))
			}
			if rows%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			rw, err := parse(rec)
			if err != nil {
				fail(line, err.Error())
				continue
			}
			if !utf8.ValidString(rw.kw.Keyword) {
				fail(line, "keyword is not valid text")
				continue
			}
			rw.kw.Source = string(kind)
			if err := w.put(ctx, rw, mode); err != nil {
				return err
			}
			rep.Imported++
		}
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

func blank(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

// limitReader reads at most n bytes and records whether r had more.
type limitReader struct {
	r    io.Reader
	n    int64
	over bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		var b [1]byte
		if n, _ := l.r.Read(b[:]); n > 0 {
			l.over = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

type decoded struct {
	r     io.Reader
	comma rune
}

// decode detects the encoding (UTF-16 with a byte-order mark or with NUL
// bytes as UTF-16LE would have, UTF-8 with or without BOM) and the
// delimiter of the header line (tab, comma or semicolon).
func decode(r io.Reader) (*decoded, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(4096)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("local: import: %w", err)
	}
	if len(head) == 0 {
		return nil, &seo.InputError{Field: "file", Reason: "is empty"}
	}
	var text io.Reader
	switch {
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		text = transform.NewReader(br, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder())
	case len(head) >= 4 && head[1] == 0 && head[3] == 0 && head[0] != 0:
		text = transform.NewReader(br, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder())
	default:
		text = transform.NewReader(br, unicode.UTF8BOM.NewDecoder())
	}
	tr := bufio.NewReaderSize(text, 64<<10)
	peek, err := tr.Peek(32 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("local: import: %w", err)
	}
	if bytes.IndexByte(peek, 0) >= 0 || !utf8.Valid(trimPartialRune(peek)) {
		return nil, &seo.InputError{Field: "file", Reason: "is not a text (CSV) file"}
	}
	comma := ','
	for _, line := range strings.Split(string(peek), "\n") {
		if detect(splitLoose(line)) == "" {
			continue
		}
		best := 0
		for _, c := range []rune{'\t', ',', ';'} {
			if n := strings.Count(line, string(c)); n > best {
				best, comma = n, c
			}
		}
		break
	}
	return &decoded{r: tr, comma: comma}, nil
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		r, size := utf8.DecodeLastRune(b)
		if r != utf8.RuneError || size > 1 {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}

// splitLoose splits a line on any delimiter, for header detection.
func splitLoose(line string) []string {
	return strings.FieldsFunc(line, func(r rune) bool { return r == '\t' || r == ',' || r == ';' || r == '\r' })
}

func headerName(s string) string {
	return strings.ToLower(strings.TrimSpace(strings.Trim(strings.TrimSpace(s), `"`)))
}

// detect returns the format whose header rec is, or "".
func detect(rec []string) Format {
	has := map[string]bool{}
	for _, f := range rec {
		has[headerName(f)] = true
	}
	switch {
	case has["keyword"] && has["avg. monthly searches"]:
		return KeywordPlanner
	case (has["top queries"] || has["query"]) && has["impressions"] && has["clicks"]:
		return SearchConsole
	case has["keyword"] && has["volume"]:
		return Semrush
	}
	return ""
}

var monthNames = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

type monthCol struct {
	idx, year, month int
}

func newParser(kind Format, header []string) (parser, error) {
	col := map[string]int{}
	var months []monthCol
	for i, h := range header {
		n := headerName(h)
		if _, dup := col[n]; !dup {
			col[n] = i
		}
		if rest, ok := strings.CutPrefix(n, "searches:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 {
				m, okm := monthNames[f[0][:min(3, len(f[0]))]]
				y, erry := strconv.Atoi(f[1])
				if okm && erry == nil {
					months = append(months, monthCol{i, y, m})
				}
			}
		}
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	keyword := func(rec []string, name string) (string, error) {
		i, ok := col[name]
		if !ok || i >= len(rec) {
			return "", fmt.Errorf("row has %d fields, the header %d", len(rec), len(header))
		}
		k := strings.TrimSpace(rec[i])
		if _, err := keywords.ValidateQuery(k); err != nil {
			ie, _ := seo.AsInputError(err)
			return "", fmt.Errorf("keyword %s", ie.Reason)
		}
		return k, nil
	}
	switch kind {
	case KeywordPlanner:
		return func(rec []string) (row, error) {
			k, err := keyword(rec, "keyword")
			if err != nil {
				return row{}, err
			}
			kw := keywords.Keyword{Keyword: k}
			v := get(rec, "avg. monthly searches")
			if lo, hi, ok := parseRange(v); ok {
				kw.VolumeRange = lo + " – " + hi
			} else if kw.Volume, err = parseCount(v); err != nil {
				return row{}, fmt.Errorf("avg. monthly searches: %w", err)
			}
			if kw.PaidCompetition, err = parsePercentInt(get(rec, "competition (indexed value)")); err != nil {
				return row{}, fmt.Errorf("competition (indexed value): %w", err)
			}
			for _, m := range months {
				if m.idx >= len(rec) {
					continue
				}
				n, err := parseCount(strings.TrimSpace(rec[m.idx]))
				if err != nil {
					return row{}, fmt.Errorf("%s: %w", header[m.idx], err)
				}
				if n != nil {
					kw.Monthly = append(kw.Monthly, keywords.MonthlyVolume{Year: m.year, Month: m.month, Volume: *n})
				}
			}
			return row{kw: kw}, nil
		}, nil
	case SearchConsole:
		qcol := "top queries"
		if _, ok := col[qcol]; !ok {
			qcol = "query"
		}
		return func(rec []string) (row, error) {
			k, err := keyword(rec, qcol)
			if err != nil {
				return row{}, err
			}
			clicks, err := parseCount(get(rec, "clicks"))
			if err != nil || clicks == nil {
				return row{}, fmt.Errorf("clicks: %v", orMissing(err))
			}
			impr, err := parseCount(get(rec, "impressions"))
			if err != nil || impr == nil {
				return row{}, fmt.Errorf("impressions: %v", orMissing(err))
			}
			st := &keywords.SearchConsoleStats{Clicks: *clicks, Impressions: *impr}
			if c := get(rec, "ctr"); c != "" {
				f, err := parseFloat(strings.TrimSuffix(c, "%"))
				if err != nil || f < 0 || f > 100 {
					return row{}, fmt.Errorf("ctr: not a percentage: %q", c)
				}
				if strings.HasSuffix(c, "%") {
					f /= 100
				}
				st.CTR = &f
			}
			if p := get(rec, "position"); p != "" {
				f, err := parseFloat(p)
				if err != nil || f < 1 {
					return row{}, fmt.Errorf("position: not a position: %q", p)
				}
				st.Position = &f
			}
			return row{kw: keywords.Keyword{Keyword: k}, gsc: st}, nil
		}, nil
	case Semrush:
		cpcCol := ""
		for name := range col {
			if strings.HasPrefix(name, "cpc") {
				cpcCol = name
			}
		}
		return func(rec []string) (row, error) {
			k, err := keyword(rec, "keyword")
			if err != nil {
				return row{}, err
			}
			kw := keywords.Keyword{Keyword: k}
			if kw.Volume, err = parseCount(get(rec, "volume")); err != nil {
				return row{}, fmt.Errorf("volume: %w", err)
			}
			if kw.Difficulty, err = parsePercentInt(get(rec, "keyword difficulty")); err != nil {
				return row{}, fmt.Errorf("keyword difficulty: %w", err)
			}
			if kw.Difficulty != nil {
				kw.DifficultyMethod = "imported:semrush"
			}
			if c := get(rec, cpcCol); cpcCol != "" && c != "" && c != "n/a" {
				f, err := parseFloat(c)
				if err != nil || f < 0 {
					return row{}, fmt.Errorf("%s: not an amount: %q", cpcCol, c)
				}
				kw.CPC = &f
			}
			return row{kw: kw}, nil
		}, nil
	}
	return nil, fmt.Errorf("unsupported format %q", kind)
}

func orMissing(err error) error {
	if err == nil {
		return errors.New("missing")
	}
	return err
}

// parseCount reads a non-negative whole number such as "12100", "1,300"
// or "170.0"; "", "-" and "n/a" mean unknown (nil).
func parseCount(s string) (*int, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "-", "--", "n/a":
		return nil, nil
	}
	f, err := parseFloat(strings.ReplaceAll(s, ",", ""))
	if err != nil || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return nil, fmt.Errorf("not a count: %q", s)
	}
	n := int(f)
	return &n, nil
}

// parsePercentInt reads a 0-100 score, rounding decimals ("85.18").
func parsePercentInt(s string) (*int, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "-", "--", "n/a":
		return nil, nil
	}
	f, err := parseFloat(s)
	if err != nil || f < 0 || f > 100 {
		return nil, fmt.Errorf("not a score from 0 to 100: %q", s)
	}
	n := int(math.Round(f))
	return &n, nil
}

func parseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return f, nil
}

// parseRange reads a Keyword Planner bucket such as "1K – 10K" or
// "10 – 100" (en dash or hyphen).
func parseRange(s string) (lo, hi string, ok bool) {
	for _, sep := range []string{"–", "—", " - "} {
		a, b, found := strings.Cut(s, sep)
		if !found {
			continue
		}
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		if validBucket(a) && validBucket(b) {
			return a, b, true
		}
	}
	return "", "", false
}

func validBucket(s string) bool {
	s = strings.TrimRight(strings.ToUpper(s), "KM")
	_, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	return s != "" && err == nil
}
