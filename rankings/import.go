package rankings

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/seo"
)

// Import limits.
const (
	// MaxImportRows is the most data rows one import reads.
	MaxImportRows = 200_000
	// MaxImportBytes is the largest file one import reads.
	MaxImportBytes = 64 << 20
)

// SourceSearchConsoleExport is the Observation.Source of positions
// imported from a Search Console export.
const SourceSearchConsoleExport = "searchconsole-export"

// SourceCSVImport is the Observation.Source of rows imported with
// ImportCSV when the file does not name one.
const SourceCSVImport = "csv-import"

// ImportOptions says what an imported file is about.
type ImportOptions struct {
	// Domain the positions belong to (required; see ParseTarget).
	Domain string
	// Date is the day the observations are stored under; required by
	// ImportSearchConsole (use the last day of the export's period), a
	// default for ImportCSV rows (which carry their own).
	Date time.Time
	// Locale and Device of the observations; zero means none and Desktop.
	Locale seo.Locale
	Device Device
}

// ImportReport says what an import did.
type ImportReport struct {
	// Imported is the number of observations stored.
	Imported int `json:"imported"`
	// Skipped lists the rows left out, by line number (1-based, header
	// included), with the reason.
	Skipped []LineError `json:"skipped,omitempty"`
	// Changes compares a Search Console export with the previous one
	// imported for the same domain, locale and device; nil when there is
	// none.
	Changes *ImportChanges `json:"changes,omitempty"`
}

// ImportChanges counts how the queries of an export moved since the
// previous export (see [MovementOf]): a query only in the previous export
// is lost, one only in this export is new.
type ImportChanges struct {
	// Previous is the day of the previous export, YYYY-MM-DD.
	Previous  string `json:"previous"`
	Improved  int    `json:"improved"`
	Declined  int    `json:"declined"`
	Unchanged int    `json:"unchanged"`
	New       int    `json:"new"`
	Lost      int    `json:"lost"`
}

func (c *ImportChanges) add(m Movement) {
	switch m {
	case MovedUp:
		c.Improved++
	case MovedDown:
		c.Declined++
	case Unmoved:
		c.Unchanged++
	case NewlyRanked:
		c.New++
	case Lost:
		c.Lost++
	}
}

// LineError is a row of an imported file that was left out.
type LineError struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

func (o *ImportOptions) check(dateRequired bool) (Target, Device, error) {
	tg, err := ParseTarget(o.Domain)
	if err != nil {
		return tg, "", err
	}
	if dateRequired && o.Date.IsZero() {
		return tg, "", &seo.InputError{Field: "date", Reason: "is missing: give the last day of the exported period"}
	}
	if !o.Date.IsZero() && (o.Date.Before(firstStoreDay) || !o.Date.Before(lastStoreDay)) {
		return tg, "", &seo.InputError{Field: "date", Value: o.Date.Format(time.DateOnly), Reason: "must be between 1990 and 2199"}
	}
	if err := checkLocale("locale", o.Locale); err != nil {
		return tg, "", err
	}
	dev, err := NormalizeDevice("device", o.Device)
	return tg, dev, err
}

// newCSVReader returns a CSV reader over r with a UTF-8 byte order mark
// removed, the size capped and the delimiter (comma, semicolon or tab)
// taken from the first line.
func newCSVReader(r io.Reader) *csv.Reader {
	cr := &capReader{r: r, left: MaxImportBytes}
	br := bufio.NewReaderSize(cr, 64<<10)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		br.Discard(3)
	}
	first, _ := br.Peek(4096)
	line, _, _ := bytes.Cut(first, []byte("\n"))
	delim := ','
	if c, s, tb := bytes.Count(line, []byte(",")), bytes.Count(line, []byte(";")), bytes.Count(line, []byte("\t")); tb > c && tb >= s {
		delim = '\t'
	} else if s > c {
		delim = ';'
	}
	cv := csv.NewReader(br)
	cv.Comma = delim
	cv.FieldsPerRecord = -1
	cv.ReuseRecord = true
	return cv
}

// capReader fails once more than left bytes are read.
type capReader struct {
	r    io.Reader
	left int64
}

var errTooLarge = errors.New("too large")

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

func readErr(err error, line int) error {
	if errors.Is(err, errTooLarge) {
		return &seo.InputError{Field: "file", Reason: fmt.Sprintf("is larger than %d MiB", MaxImportBytes>>20), Err: seo.ErrTooLarge}
	}
	return &seo.InputError{Field: "file", Reason: fmt.Sprintf("line %d: %v", line, err)}
}

func normHeader(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}

// parsePosition parses a position such as "4.3" or "4,3" (decimal comma).
func parsePosition(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if strings.Count(s, ",") == 1 && !strings.Contains(s, ".") {
		s = strings.Replace(s, ",", ".", 1)
	}
	p, err := strconv.ParseFloat(s, 64)
	if err != nil || p != p || p < 1 || p > 1e6 {
		return 0, fmt.Errorf("position %q is not a number of at least 1", s)
	}
	return p, nil
}

// ImportSearchConsole reads the Queries.csv of a Search Console
// performance export (columns "Top queries", "Clicks", "Impressions",
// "CTR", "Position"; UTF-8 with or without a byte order mark; comma,
// semicolon or tab separated) and stores each query's average position
// for opts.Domain on opts.Date with Average true and Source
// "searchconsole-export", tracking every query. The good rows are stored
// in one Record (all or nothing); bad rows are listed in the report by
// line. A file without the query and position columns, or with no good
// row, is an *seo.InputError for "file".
//
// An export lists every query with impressions, so a query missing from
// it did not rank that period. The import compares the export with the
// Search Console exports imported on the nearest earlier and later days
// (same domain, locale and device) and records that absence explicitly,
// as an observation without a position (Depth 0, Source
// "searchconsole-export"): on this day for a query only in the other
// export, on the other export's day for a query only in this one. History
// and reports then show such queries as lost or new instead of carrying
// the last position forward as unchanged. An observation another source
// stored on such a day is never replaced. Report.Changes compares the
// export with the earlier one.
func ImportSearchConsole(ctx context.Context, st Store, r io.Reader, opts ImportOptions) (*ImportReport, error) {
	tg, dev, err := opts.check(true)
	if err != nil {
		return nil, err
	}
	cv := newCSVReader(r)
	head, err := cv.Read()
	if err != nil {
		if err == io.EOF {
			return nil, &seo.InputError{Field: "file", Reason: "is empty"}
		}
		return nil, readErr(err, 1)
	}
	qi, pi := -1, -1
	for i, h := range head {
		switch normHeader(h) {
		case "top queries", "query", "queries":
			qi = i
		case "position", "average position":
			pi = i
		}
	}
	if qi < 0 || pi < 0 {
		return nil, &seo.InputError{Field: "file", Value: strings.Join(head, ","),
			Reason: `is not a Search Console queries export: the header needs "Top queries" and "Position" columns`}
	}
	date := Day(opts.Date)
	rep := &ImportReport{}
	var obs []Observation
	line := 1
	for {
		rec, err := cv.Read()
		line++
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && !errors.Is(err, errTooLarge) {
				rep.Skipped = append(rep.Skipped, LineError{line, pe.Err.Error()})
				continue
			}
			return nil, readErr(err, line)
		}
		if len(obs)+len(rep.Skipped) >= MaxImportRows {
			return nil, &seo.InputError{Field: "file", Reason: fmt.Sprintf("has more than %d rows", MaxImportRows), Err: seo.ErrTooLarge}
		}
		if len(rec) <= max(qi, pi) {
			rep.Skipped = append(rep.Skipped, LineError{line, fmt.Sprintf("has %d columns, want at least %d", len(rec), max(qi, pi)+1)})
			continue
		}
		k, err := NormalizeKeyword("query", rec[qi])
		if err != nil {
			rep.Skipped = append(rep.Skipped, LineError{line, err.Error()})
			continue
		}
		p, err := parsePosition(rec[pi])
		if err != nil {
			rep.Skipped = append(rep.Skipped, LineError{line, err.Error()})
			continue
		}
		obs = append(obs, Observation{Domain: tg.String(), Keyword: k, Locale: opts.Locale, Device: dev, Date: date,
			Position: &p, Average: true, Source: SourceSearchConsoleExport, CheckedAt: date})
	}
	if len(obs) == 0 {
		return store(ctx, st, obs, nil, rep)
	}
	absent, changes, err := compareExports(ctx, st, obs)
	if err != nil {
		return rep, err
	}
	rep.Changes = changes
	return store(ctx, st, obs, absent, rep)
}

// exportSeries filters observations to one Search Console series set:
// the exact locale and device of the import.
func exportSeries(o *Observation, like *Observation) bool {
	return o.Locale == like.Locale && o.Device == like.Device
}

// compareExports compares the observations of an export (one domain,
// locale, device and date) with the nearest Search Console exports before
// and after it. It returns the position-less observations recording the
// queries each export lacks, and the changes since the earlier export.
func compareExports(ctx context.Context, st Store, obs []Observation) ([]Observation, *ImportChanges, error) {
	first := obs[0]
	date := first.Date
	inFile := make(map[string]*float64, len(obs))
	for _, o := range obs {
		inFile[o.Keyword] = o.Position
	}
	f := Filter{Domain: first.Domain, Locale: first.Locale, Device: first.Device}
	// The nearest Search Console days before and after date.
	var prev, next time.Time
	err := ScanHistory(ctx, st, f, func(o *Observation) error {
		if o.Source != SourceSearchConsoleExport || !exportSeries(o, &first) {
			return nil
		}
		switch d := o.Date; {
		case d.Before(date) && d.After(prev):
			prev = d
		case d.After(date) && (next.IsZero() || d.Before(next)):
			next = d
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("rankings: import: read earlier exports: %w", err)
	}
	// onDay reads every observation of the series set on one day: the
	// export's rows by keyword, and the keywords with any observation.
	onDay := func(d time.Time) (export map[string]*float64, taken map[string]bool, err error) {
		export, taken = map[string]*float64{}, map[string]bool{}
		g := f
		g.From, g.To = d, d
		err = ScanHistory(ctx, st, g, func(o *Observation) error {
			if !exportSeries(o, &first) {
				return nil
			}
			taken[o.Keyword] = true
			if o.Source == SourceSearchConsoleExport {
				var p *float64
				if o.Position != nil {
					v := *o.Position
					p = &v
				}
				export[o.Keyword] = p
			}
			return nil
		})
		return export, taken, err
	}
	absentOn := func(d time.Time, k string) Observation {
		return Observation{Domain: first.Domain, Keyword: k, Locale: first.Locale, Device: first.Device, Date: d,
			Average: true, Source: SourceSearchConsoleExport, CheckedAt: d}
	}
	if prev.IsZero() && next.IsZero() {
		return nil, nil, nil
	}
	_, takenToday, err := onDay(date)
	if err != nil {
		return nil, nil, fmt.Errorf("rankings: import: read the export's day: %w", err)
	}
	var absent []Observation
	missingToday := map[string]bool{}
	// other compares the export with the one on day d: queries ranked
	// there and missing here are recorded as absent here; queries here
	// with nothing on day d are recorded as absent there.
	other := func(d time.Time) (map[string]*float64, error) {
		export, taken, err := onDay(d)
		if err != nil {
			return nil, fmt.Errorf("rankings: import: read the export of %s: %w", d.Format(time.DateOnly), err)
		}
		for k, p := range export {
			if _, ok := inFile[k]; !ok && p != nil && !takenToday[k] && !missingToday[k] {
				missingToday[k] = true
				absent = append(absent, absentOn(date, k))
			}
		}
		for _, o := range obs {
			if !taken[o.Keyword] {
				absent = append(absent, absentOn(d, o.Keyword))
			}
		}
		return export, nil
	}
	var changes *ImportChanges
	if !prev.IsZero() {
		export, err := other(prev)
		if err != nil {
			return nil, nil, err
		}
		changes = &ImportChanges{Previous: prev.Format(time.DateOnly)}
		for k, p := range export {
			if _, ok := inFile[k]; !ok && p != nil {
				changes.add(MovementOf(p, nil))
			}
		}
		for _, o := range obs {
			changes.add(MovementOf(export[o.Keyword], o.Position))
		}
	}
	if !next.IsZero() {
		if _, err := other(next); err != nil {
			return nil, nil, err
		}
	}
	return absent, changes, nil
}

// store tracks and records the observations of an import, and records
// absent, the observations of queries missing from an export (not
// tracked anew: they were tracked when first imported).
func store(ctx context.Context, st Store, obs, absent []Observation, rep *ImportReport) (*ImportReport, error) {
	if len(obs) == 0 {
		reason := "has no data rows"
		if len(rep.Skipped) > 0 {
			reason = fmt.Sprintf("has no valid row (line %d: %s)", rep.Skipped[0].Line, rep.Skipped[0].Reason)
		}
		return rep, &seo.InputError{Field: "file", Reason: reason}
	}
	// Record first: when it fails nothing is tracked either.
	if err := st.Record(ctx, append(slices.Clip(obs), absent...)); err != nil {
		return rep, fmt.Errorf("rankings: import: %w", err)
	}
	seen := map[Tracked]bool{}
	var tr []Tracked
	for _, o := range obs {
		t := Tracked{Domain: o.Domain, Keyword: o.Keyword, Locale: o.Locale, Device: o.Device}
		if !seen[t] {
			seen[t] = true
			tr = append(tr, t)
		}
	}
	if err := st.Track(ctx, tr); err != nil {
		return rep, fmt.Errorf("rankings: import: track: %w", err)
	}
	rep.Imported = len(obs)
	return rep, nil
}

// ImportCSV reads ranking history in a simple generic format, so that
// history kept by another tracker (SerpBear exports, spreadsheets) can be
// brought in:
//
//	date,keyword,position,url[,locale,device]
//
// with a header row naming those columns (any order; "source" may be
// added). date is YYYY-MM-DD (opts.Date when empty), position is the
// organic rank (empty or "-" means not ranked), locale and device default
// to opts.Locale and opts.Device. The good rows are stored in one Record;
// bad rows are listed in the report by line.
func ImportCSV(ctx context.Context, st Store, r io.Reader, opts ImportOptions) (*ImportReport, error) {
	tg, dev, err := opts.check(false)
	if err != nil {
		return nil, err
	}
	cv := newCSVReader(r)
	head, err := cv.Read()
	if err != nil {
		if err == io.EOF {
			return nil, &seo.InputError{Field: "file", Reason: "is empty"}
		}
		return nil, readErr(err, 1)
	}
	col := map[string]int{}
	for i, h := range head {
		col[normHeader(h)] = i
	}
	for _, need := range []string{"date", "keyword", "position"} {
		if _, ok := col[need]; !ok {
			return nil, &seo.InputError{Field: "file", Value: strings.Join(head, ","),
				Reason: fmt.Sprintf("the header has no %q column (want date,keyword,position,url[,locale,device])", need)}
		}
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	rep := &ImportReport{}
	var obs []Observation
	line := 1
	for {
		rec, err := cv.Read()
		line++
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && !errors.Is(err, errTooLarge) {
				rep.Skipped = append(rep.Skipped, LineError{line, pe.Err.Error()})
				continue
			}
			return nil, readErr(err, line)
		}
		if len(obs)+len(rep.Skipped) >= MaxImportRows {
			return nil, &seo.InputError{Field: "file", Reason: fmt.Sprintf("has more than %d rows", MaxImportRows), Err: seo.ErrTooLarge}
		}
		skip := func(reason string) { rep.Skipped = append(rep.Skipped, LineError{line, reason}) }
		o := Observation{Domain: tg.String(), Locale: opts.Locale, Device: dev, Source: SourceCSVImport, Depth: 0}
		if ds := get(rec, "date"); ds != "" {
			d, err := time.Parse(time.DateOnly, ds)
			if err != nil {
				skip(fmt.Sprintf("date %q is not YYYY-MM-DD", ds))
				continue
			}
			o.Date = d
		} else if !opts.Date.IsZero() {
			o.Date = Day(opts.Date)
		} else {
			skip("date is empty")
			continue
		}
		k, err := NormalizeKeyword("keyword", get(rec, "keyword"))
		if err != nil {
			skip(err.Error())
			continue
		}
		o.Keyword = k
		if ps := get(rec, "position"); ps != "" && ps != "-" {
			p, err := parsePosition(ps)
			if err != nil {
				skip(err.Error())
				continue
			}
			o.Position = &p
		}
		o.URL = get(rec, "url")
		if o.URL != "" && o.Position == nil {
			skip("url given for a row that is not ranked")
			continue
		}
		if o.URL != "" && !tg.Matches(o.URL, AnySubdomain) {
			skip(fmt.Sprintf("url %q is not on %s", o.URL, tg.Host))
			continue
		}
		if ls := get(rec, "locale"); ls != "" {
			l, err := seo.ParseLocale(ls)
			if err != nil {
				skip(err.Error())
				continue
			}
			o.Locale = l
		}
		if ds := get(rec, "device"); ds != "" {
			d, err := NormalizeDevice("device", Device(ds))
			if err != nil {
				skip(err.Error())
				continue
			}
			o.Device = d
		}
		if s := get(rec, "source"); s != "" {
			o.Source = s
		}
		o.CheckedAt = o.Date
		if _, err := NormalizeObservation(0, o); err != nil {
			skip(err.Error())
			continue
		}
		obs = append(obs, o)
	}
	return store(ctx, st, obs, nil, rep)
}
