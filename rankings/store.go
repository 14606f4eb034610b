package rankings

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/seokit/seokit/seo"
)

// MaxKeywordLen is the longest keyword, in characters, that the tracker and
// the stores accept.
const MaxKeywordLen = 200

// HistoryScanner is an optional Store capability: it calls fn for each
// observation History would return, in the same order, without building
// the whole slice. fn must not keep o after it returns (stores reuse it).
// Use [ScanHistory], which falls back to History for other stores.
type HistoryScanner interface {
	ScanHistory(ctx context.Context, f Filter, fn func(o *Observation) error) error
}

// ScanHistory calls fn for each observation of st matching f, ordered by
// keyword, locale, device and date. It streams when st implements
// [HistoryScanner] and otherwise walks the result of History. An error
// returned by fn stops the scan and is returned as is.
func ScanHistory(ctx context.Context, st Store, f Filter, fn func(o *Observation) error) error {
	if hs, ok := st.(HistoryScanner); ok {
		return hs.ScanHistory(ctx, f, fn)
	}
	obs, err := st.History(ctx, f)
	if err != nil {
		return err
	}
	for i := range obs {
		if err := fn(&obs[i]); err != nil {
			return err
		}
	}
	return nil
}

// Day returns the UTC calendar day of t (time part zero, location UTC).
func Day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// DayNumber returns the number of UTC days between 1970-01-01 and t's UTC day.
func DayNumber(t time.Time) int64 {
	return Day(t).Unix() / 86400
}

// DayFromNumber is the inverse of [DayNumber].
func DayFromNumber(n int64) time.Time {
	return time.Unix(n*86400, 0).UTC()
}

// NormalizeDevice returns d with "" mapped to Desktop, or an
// *seo.InputError for field when d is not a known device.
func NormalizeDevice(field string, d Device) (Device, error) {
	switch d {
	case "":
		return Desktop, nil
	case Desktop, Mobile:
		return d, nil
	}
	v := Device(strings.ToLower(strings.TrimSpace(string(d))))
	if v == Desktop || v == Mobile {
		return v, nil
	}
	return "", &seo.InputError{Field: field, Value: string(d), Reason: "must be desktop or mobile"}
}

// NormalizeKeyword trims k and checks it is non-empty, valid UTF-8, free of
// control characters and at most MaxKeywordLen characters; otherwise it
// returns an *seo.InputError for field.
func NormalizeKeyword(field, k string) (string, error) {
	s := strings.TrimSpace(k)
	bad := func(reason string) (string, error) {
		return "", &seo.InputError{Field: field, Value: k, Reason: reason}
	}
	switch {
	case s == "":
		return bad("is empty")
	case !utf8.ValidString(s):
		return bad("is not valid UTF-8")
	case utf8.RuneCountInString(s) > MaxKeywordLen:
		return bad(fmt.Sprintf("is longer than %d characters", MaxKeywordLen))
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return bad("contains control characters")
	}
	return s, nil
}

// firstStoreDay and lastStoreDay bound the dates a store accepts.
var (
	firstStoreDay = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
	lastStoreDay  = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// NormalizeObservation checks o as a Store's Record does and returns it
// normalised: keyword trimmed, Device "" as Desktop, Date as its UTC day,
// CheckedAt in UTC (the Date's midnight when zero). index is the position
// of o in its batch and names the fields of the *seo.InputError
// ("observations[2].keyword").
func NormalizeObservation(index int, o Observation) (Observation, error) {
	field := func(name string) string { return fmt.Sprintf("observations[%d].%s", index, name) }
	// Fields are named only on error: formatting them costs more than the
	// checks on large imports.
	rename := func(err error, name string) error {
		if ie, ok := seo.AsInputError(err); ok {
			return ie.WithField(field(name))
		}
		return err
	}
	if strings.TrimSpace(o.Domain) == "" {
		return o, &seo.InputError{Field: field("domain"), Reason: "is empty"}
	}
	o.Domain = strings.ToLower(strings.TrimSpace(o.Domain))
	k, err := NormalizeKeyword("keyword", o.Keyword)
	if err != nil {
		return o, rename(err, "keyword")
	}
	o.Keyword = k
	if o.Device, err = NormalizeDevice("device", o.Device); err != nil {
		return o, rename(err, "device")
	}
	if err := checkLocale("locale", o.Locale); err != nil {
		return o, rename(err, "locale")
	}
	if o.Date.IsZero() {
		return o, &seo.InputError{Field: field("date"), Reason: "is missing"}
	}
	o.Date = Day(o.Date)
	if o.Date.Before(firstStoreDay) || !o.Date.Before(lastStoreDay) {
		return o, &seo.InputError{Field: field("date"), Value: o.Date.Format(time.DateOnly), Reason: "must be between 1990 and 2199"}
	}
	if o.Position != nil {
		p := *o.Position
		if math.IsNaN(p) || math.IsInf(p, 0) || p < 1 {
			return o, &seo.InputError{Field: field("position"), Value: fmt.Sprint(p), Reason: "must be at least 1 (nil means not ranked)"}
		}
		v := p
		o.Position = &v
	}
	if o.Depth < 0 {
		return o, &seo.InputError{Field: field("depth"), Value: fmt.Sprint(o.Depth), Reason: "must not be negative"}
	}
	if len(o.URL) > 4096 {
		return o, &seo.InputError{Field: field("url"), Value: o.URL, Reason: "is longer than 4096 bytes"}
	}
	if len(o.Source) > 100 {
		return o, &seo.InputError{Field: field("source"), Value: o.Source, Reason: "is longer than 100 bytes"}
	}
	if o.CheckedAt.IsZero() {
		o.CheckedAt = o.Date
	}
	o.CheckedAt = o.CheckedAt.UTC()
	return o, nil
}

// NormalizeFailure checks f as a FailureStore's RecordFailures does and
// returns it normalised: keyword trimmed, Device "" as Desktop, At in UTC,
// Error made safe with [FailureMessage]'s limits. index names the fields
// of the *seo.InputError ("failures[2].keyword").
func NormalizeFailure(index int, f Failure) (Failure, error) {
	field := func(name string) string { return fmt.Sprintf("failures[%d].%s", index, name) }
	if strings.TrimSpace(f.Domain) == "" {
		return f, &seo.InputError{Field: field("domain"), Reason: "is empty"}
	}
	f.Domain = strings.ToLower(strings.TrimSpace(f.Domain))
	k, err := NormalizeKeyword(field("keyword"), f.Keyword)
	if err != nil {
		return f, err
	}
	f.Keyword = k
	if f.Device, err = NormalizeDevice(field("device"), f.Device); err != nil {
		return f, err
	}
	if err := checkLocale(field("locale"), f.Locale); err != nil {
		return f, err
	}
	if f.At.IsZero() {
		return f, &seo.InputError{Field: field("at"), Reason: "is missing"}
	}
	f.At = f.At.UTC()
	if len(f.Source) > 100 {
		return f, &seo.InputError{Field: field("source"), Value: f.Source, Reason: "is longer than 100 bytes"}
	}
	if len(f.Error) > maxFailureMessage+len("…") {
		f.Error = strings.ToValidUTF8(f.Error[:maxFailureMessage], "") + "…"
	}
	return f, nil
}

// NormalizeTracked checks t as a Store's Track does and returns it
// normalised (keyword trimmed, Device "" as Desktop, AddedAt in UTC; now
// when zero).
func NormalizeTracked(index int, t Tracked, now time.Time) (Tracked, error) {
	field := func(name string) string { return fmt.Sprintf("keywords[%d].%s", index, name) }
	if strings.TrimSpace(t.Domain) == "" {
		return t, &seo.InputError{Field: field("domain"), Reason: "is empty"}
	}
	t.Domain = strings.ToLower(strings.TrimSpace(t.Domain))
	k, err := NormalizeKeyword(field("keyword"), t.Keyword)
	if err != nil {
		return t, err
	}
	t.Keyword = k
	if t.Device, err = NormalizeDevice(field("device"), t.Device); err != nil {
		return t, err
	}
	if err := checkLocale(field("locale"), t.Locale); err != nil {
		return t, err
	}
	if t.AddedAt.IsZero() {
		t.AddedAt = now
	}
	t.AddedAt = t.AddedAt.UTC()
	return t, nil
}

// NormalizeFilter checks f for a Store method: Domain is required unless
// allowAllDomains, Device must be known, From must not be after To. Dates
// become UTC days and Domain lowercase.
func NormalizeFilter(f Filter, allowAllDomains bool) (Filter, error) {
	f.Domain = strings.ToLower(strings.TrimSpace(f.Domain))
	if f.Domain == "" && !allowAllDomains {
		return f, &seo.InputError{Field: "domain", Reason: "is empty"}
	}
	if f.Device != "" {
		d, err := NormalizeDevice("device", f.Device)
		if err != nil {
			return f, err
		}
		f.Device = d
	}
	if !f.From.IsZero() {
		f.From = Day(f.From)
	}
	if !f.To.IsZero() {
		f.To = Day(f.To)
	}
	if !f.From.IsZero() && !f.To.IsZero() && f.From.After(f.To) {
		return f, &seo.InputError{Field: "from", Value: f.From.Format(time.DateOnly), Reason: "is after to (" + f.To.Format(time.DateOnly) + ")"}
	}
	if f.Keywords != nil {
		ks := make([]string, 0, len(f.Keywords))
		for _, k := range f.Keywords {
			if s := strings.TrimSpace(k); s != "" {
				ks = append(ks, s)
			}
		}
		f.Keywords = ks
	}
	return f, nil
}

// checkLocale accepts the zero Locale (no locale) and locales that
// seo.ParseLocale accepts in their canonical form.
func checkLocale(field string, l seo.Locale) error {
	if l == (seo.Locale{}) {
		return nil
	}
	if _, ok := validLocales.Load(l); ok {
		return nil
	}
	p, err := seo.ParseLocale(l.String())
	if err != nil || p != l {
		return &seo.InputError{Field: field, Value: l.Language + "-" + l.Region, Reason: "must be a locale such as en-US"}
	}
	validLocales.Store(l, true)
	return nil
}

// validLocales remembers the locales checkLocale accepted (a few hundred
// at most exist), since parsing one costs more than the rest of a check.
var validLocales sync.Map
