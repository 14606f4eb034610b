package reports

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// Volumes looks up keyword search volumes; a keywords.Source satisfies it.
type Volumes interface {
	Volumes(ctx context.Context, keywords []string, loc seo.Locale) ([]keywords.Keyword, error)
}

// Builder builds performance reports from ranking history, keyword volumes
// and an optional traffic source.
type Builder struct {
	st   rankings.Store
	vol  Volumes
	opts Options
}

// Weighting names how keywords are weighted in the visibility score.
const (
	// WeightVolume weights each keyword by its monthly search volume
	// (SISTRIX-like); keywords without a known volume are left out of the
	// score. With no volume known at all it falls back to WeightEqual.
	WeightVolume = "volume"
	// WeightEqual gives every keyword the same weight (the Semrush
	// Position Tracking semantics).
	WeightEqual = "equal"
)

// Options configures a Builder. The zero value is usable.
type Options struct {
	// Curve is the CTR curve; nil means CurveDefault.
	Curve *Curve
	// Weighting is WeightVolume (the default when "") or WeightEqual.
	Weighting string
	// Traffic is an optional measured-traffic source (Search Console,
	// GA4). Its failure does not fail the report: the error is reported in
	// Traffic.MeasuredError and the estimate kept.
	Traffic TrafficSource
	// MaxDays is the longest range accepted; 0 means DefaultMaxDays.
	MaxDays int
	// VolumeBatch is the most keywords per Volumes call; 0 means 1000.
	VolumeBatch int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// BuildOptions selects the locale and device of one report.
type BuildOptions struct {
	Locale seo.Locale      // zero means every locale
	Device rankings.Device // "" means every device
	// Keywords is the most per-keyword rows listed in Rankings.Keywords,
	// highest volume first; 0 means 100, a negative value lists none.
	Keywords int
	// History adds each listed keyword's daily positions (for charts).
	History bool
}

// Report is a domain's performance over [Start, End].
type Report struct {
	Domain string `json:"domain"`
	Start  string `json:"start"` // YYYY-MM-DD
	End    string `json:"end"`
	// RequestedEnd is the end asked for when it lay in the future and End
	// was clamped to today.
	RequestedEnd string  `json:"requestedEnd,omitempty"`
	Locale       string  `json:"locale,omitempty"`
	Device       string  `json:"device,omitempty"`
	Metrics      Metrics `json:"metrics"`
	// GeneratedAt is when the report was built.
	GeneratedAt time.Time `json:"generatedAt"`
}

// Metrics is the report body of the SPEC.
type Metrics struct {
	// Visibility is 0-100 on the end date: 100 * sum(w*CTR(pos)) /
	// sum(w*CTR(1)) over the keywords observed by then (see the package
	// documentation); nil when no keyword in the score was checked, with
	// VisibilityReason saying why. 0 means checked and invisible.
	Visibility *float64 `json:"visibility"`
	// VisibilityReason says why Visibility is nil; "" when it is set.
	VisibilityReason string `json:"visibilityReason,omitempty"`
	// VisibilityWeights is WeightVolume or WeightEqual: the weights
	// actually used.
	VisibilityWeights string `json:"visibilityWeights"`
	// VisibilityBasis says which keywords the score covers.
	VisibilityBasis VisibilityBasis `json:"visibilityBasis"`
	// CTRModel names the CTR curve used for visibility and traffic.
	CTRModel string          `json:"ctrModel"`
	Rankings *Rankings       `json:"rankings"`
	Traffic  *TrafficMetrics `json:"traffic"`
}

// VisibilityBasis counts the keyword series behind the visibility score.
type VisibilityBasis struct {
	// Keywords is how many keyword series are in the score.
	Keywords int `json:"keywords"`
	// WithoutVolume is how many observed series were left out because
	// their volume is unknown (volume weighting only).
	WithoutVolume int `json:"withoutVolume"`
	// Unchecked is how many tracked series have no observation by the end
	// date and are left out.
	Unchecked int `json:"unchecked"`
	// Method restates the formula.
	Method string `json:"method"`
}

// Rankings is the ranking part of a report. A keyword series is one
// keyword in one locale on one device. Its position on a day is its latest
// observation on or before that day within the range.
type Rankings struct {
	// Tracked counts series tracked now or observed in the range.
	Tracked int `json:"tracked"`
	// Checked counts series with at least one observation in the range.
	Checked int `json:"checked"`
	// Ranked counts series with a position on the end date.
	Ranked int `json:"ranked"`
	Top3   int `json:"top3"`
	Top10  int `json:"top10"`
	Top20  int `json:"top20"`
	Top100 int `json:"top100"`
	// NotRanked counts checked series without a position on the end date.
	NotRanked int `json:"notRanked"`
	// Unchecked counts tracked series never observed in the range.
	Unchecked int `json:"unchecked"`
	// AveragePosition is the mean end-date position of ranked series;
	// nil when none ranks.
	AveragePosition *float64 `json:"averagePosition"`
	// AveragePositionAll is the mean over checked series counting a
	// series without a position in the top 100 as 100 (Semrush's method);
	// nil when nothing was checked.
	AveragePositionAll *float64 `json:"averagePositionAll"`
	// AveragePositionReason says why AveragePosition (and, when nothing
	// was checked, AveragePositionAll) is nil; "" when it is set.
	AveragePositionReason string `json:"averagePositionReason,omitempty"`
	// AveragePositionMethod explains both averages.
	AveragePositionMethod string `json:"averagePositionMethod"`
	// Improved, Declined and Unchanged compare the last observation in
	// the range with the first, both ranked; New ranked at the last but
	// not at the first; Lost the reverse.
	Improved  int `json:"improved"`
	Declined  int `json:"declined"`
	Unchanged int `json:"unchanged"`
	New       int `json:"new"`
	Lost      int `json:"lost"`
	// Daily has one entry per day of the range.
	Daily []Day `json:"daily"`
	// Keywords lists per-keyword rows, at most BuildOptions.Keywords.
	Keywords []KeywordRow `json:"keywords,omitempty"`
	// KeywordsTotal is the number of rows before the cap.
	KeywordsTotal int `json:"keywordsTotal"`
}

// Day is one day of the daily series.
type Day struct {
	Date string `json:"date"`
	// Known counts series with an observation on or before this day.
	Known  int `json:"known"`
	Ranked int `json:"ranked"`
	Top3   int `json:"top3"`
	Top10  int `json:"top10"`
	// AveragePosition is over the series ranked that day; nil when none
	// ranks.
	AveragePosition *float64 `json:"averagePosition"`
	// Visibility is that day's score; nil when no series in the score was
	// known that day.
	Visibility *float64 `json:"visibility"`
	// EstimatedClicks is volume/30.4 * CTR(position) summed over the
	// series with a known volume: an estimate; nil when no such series
	// was known that day.
	EstimatedClicks *float64 `json:"estimatedClicks,omitempty"`
}

// rowUnchecked is the KeywordRow.Status of a series never observed.
const rowUnchecked = "unchecked"

// KeywordRow is one keyword series in the report.
type KeywordRow struct {
	Keyword string          `json:"keyword"`
	Locale  string          `json:"locale,omitempty"`
	Device  rankings.Device `json:"device,omitempty"`
	// First, Last and Best are positions in the range; nil means not
	// ranked (or, for all three, never observed).
	First *float64 `json:"first"`
	Last  *float64 `json:"last"`
	Best  *float64 `json:"best"`
	// Change is First - Last: positive means the keyword moved up.
	Change *float64 `json:"change"`
	// Status is the movement from First to Last (rankings.MovementOf:
	// improved, declined, unchanged, new, lost, not-ranked) or unchecked
	// for a series never observed.
	Status string `json:"status"`
	URL    string `json:"url,omitempty"`
	Volume *int   `json:"volume"`
	// EstimatedMonthlyClicks is Volume * CTR(Last): an estimate.
	EstimatedMonthlyClicks *float64 `json:"estimatedMonthlyClicks,omitempty"`
	// Average is true when the positions are period averages (Search
	// Console).
	Average bool `json:"average,omitempty"`
	// History is the daily position, when BuildOptions.History is set.
	History []Point `json:"history,omitempty"`
}

// Point is a keyword's position on one day; Position nil is not ranked.
type Point struct {
	Date     string   `json:"date"`
	Position *float64 `json:"position"`
}

// TrafficMetrics is the traffic part of a report: an estimate from volumes and
// positions, and what a connected analytics source measured.
type TrafficMetrics struct {
	// Estimated is true: the EstimatedXxx figures are computed, not
	// measured.
	Estimated bool `json:"estimated"`
	// EstimatedMonthlyClicks is sum(volume * CTR(position on the end
	// date)) over keywords with a known volume; nil when no keyword with a
	// known volume was checked (Method says why).
	EstimatedMonthlyClicks *float64 `json:"estimatedMonthlyClicks"`
	// EstimatedClicks is the range total: sum over days of
	// volume/30.4 * CTR(position that day); nil when EstimatedMonthlyClicks
	// is.
	EstimatedClicks *float64 `json:"estimatedClicks"`
	// CTRModel names the curve.
	CTRModel string `json:"ctrModel"`
	// CTRSource says where the curve's figures come from (and how gaps
	// were filled, for a partial curve).
	CTRSource string `json:"ctrSource"`
	// VolumeSource lists the sources that supplied volumes.
	VolumeSource []string `json:"volumeSource"`
	// KeywordsWithVolume counts the keywords with a known volume.
	KeywordsWithVolume int `json:"keywordsWithVolume"`
	// Method explains the estimate, or why there is none.
	Method string `json:"method"`
	// VolumeError is set when the volume source failed.
	VolumeError string `json:"volumeError,omitempty"`
	// Measured is the connected source's figures, if any.
	Measured *Traffic `json:"measured,omitempty"`
	// MeasuredError is set when the traffic source failed.
	MeasuredError string `json:"measuredError,omitempty"`
}

// New returns a Builder. vol may be nil (no volumes: visibility falls back
// to equal weights and traffic estimates are left out, saying so).
func New(st rankings.Store, vol Volumes, opts *Options) *Builder {
	b := &Builder{st: st, vol: vol}
	if opts != nil {
		b.opts = *opts
	}
	if b.opts.Curve == nil {
		b.opts.Curve, _ = CurveByName(CurveDefault)
	}
	if b.opts.VolumeBatch <= 0 || b.opts.VolumeBatch > 1000 {
		b.opts.VolumeBatch = 1000
	}
	if b.opts.Now == nil {
		b.opts.Now = time.Now
	}
	return b
}

// NormalizeDomain validates a domain as reports take it and returns the
// key the ranking store uses (rankings.ParseTarget): the lowercase host
// without port and leading "www.", followed by a path prefix when one was
// given ("example.com/blog"). Errors are *seo.InputError for "domain".
func NormalizeDomain(domain string) (string, error) {
	tg, err := rankings.ParseTarget(domain)
	if err != nil {
		return "", err
	}
	return tg.String(), nil
}

// series is one keyword/locale/device with its observations in the range.
type series struct {
	keyword string
	locale  seo.Locale
	device  rankings.Device
	// days are indexes of days in the range (0 is the start), ascending;
	// pos the positions on those days, 0 when not ranked (stores only
	// keep positions of at least 1).
	days    []int32
	pos     []float64
	url     string // of the last observation
	average bool   // the last observation is a period average
	volume  *int
	fold    string // keywords.FoldCase(keyword), set by lookupVolumes
}

// position returns p as a position, nil for 0 (not ranked).
func position(p float64) *float64 {
	if p <= 0 {
		return nil
	}
	return ptr(p)
}

// PositionScanner is an optional rankings.Store capability that Build uses
// instead of rankings.ScanHistory: ScanPositions calls fn once per keyword
// series (keyword, locale, device) matching f with an observation in
// [f.From, f.To], with the series' latest observation in that range (not
// kept by fn), the day numbers (rankings.DayNumber) of its observations in
// ascending order and their positions (0 when not ranked). The slices
// belong to fn. Series come in History's order (keyword, locale,
// device). rankings/sqlstore implements it; it spares a report building
// one rankings.Observation per keyword and day. Implementations run
// reportstest.RunPositionScanner.
type PositionScanner interface {
	ScanPositions(ctx context.Context, f rankings.Filter, fn func(last *rankings.Observation, days []int32, positions []float64) error) error
}

// Build returns the report of domain for the UTC days start..end inclusive.
// start after end, or a range over the limit, is an *seo.InputError naming
// "start" or "end". An end after today is clamped to today.
func (b *Builder) Build(ctx context.Context, domain string, start, end time.Time, opts *BuildOptions) (*Report, error) {
	var bo BuildOptions
	if opts != nil {
		bo = *opts
	}
	if b.st == nil {
		return nil, fmt.Errorf("reports: no ranking store: %w", seo.ErrUnavailable)
	}
	dom, err := NormalizeDomain(domain)
	if err != nil {
		return nil, err
	}
	now := b.opts.Now()
	s, e, clamped, err := checkRange(start, end, now, b.opts.MaxDays)
	if err != nil {
		return nil, err
	}
	switch b.opts.Weighting {
	case "", WeightVolume, WeightEqual:
	default:
		return nil, &seo.InputError{Field: "weighting", Value: b.opts.Weighting, Reason: "must be volume or equal"}
	}
	if bo.Device != "" && bo.Device != rankings.Desktop && bo.Device != rankings.Mobile {
		return nil, &seo.InputError{Field: "device", Value: string(bo.Device), Reason: "must be desktop or mobile"}
	}
	rep := &Report{Domain: dom, Start: s.Format(DateLayout), End: e.Format(DateLayout),
		Locale: bo.Locale.String(), Device: string(bo.Device), GeneratedAt: now.UTC()}
	if clamped {
		rep.RequestedEnd = day(end).Format(DateLayout)
	}

	all, err := b.load(ctx, dom, s, e, bo)
	if err != nil {
		return nil, err
	}

	tr := &TrafficMetrics{Estimated: true, CTRModel: b.opts.Curve.Name, CTRSource: b.opts.Curve.Source, VolumeSource: []string{}}
	if b.opts.Curve.Method != "" {
		tr.CTRSource += "; " + b.opts.Curve.Method
	}
	sources, err := b.lookupVolumes(ctx, all)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("reports: keyword volumes: %w", err)
		}
		tr.VolumeError = err.Error()
	}
	tr.VolumeSource = sources

	rep.Metrics = compute(all, s, e, b.opts.Curve, b.opts.Weighting, bo, tr)
	rep.Metrics.Traffic = tr

	if b.opts.Traffic != nil {
		m, err := b.opts.Traffic.Traffic(ctx, dom, s, e)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, fmt.Errorf("reports: measured traffic: %w", err)
		case err != nil:
			tr.MeasuredError = err.Error()
			if name := b.opts.Traffic.Name(); !strings.HasPrefix(tr.MeasuredError, name+":") {
				tr.MeasuredError = name + ": " + tr.MeasuredError
			}
		default:
			tr.Measured = m
		}
	}
	return rep, nil
}

// load reads the history of the range in one pass (streaming when the
// store can) into series, and adds the tracked series that have no
// observation. Tracked series added after end are left out. The tracked
// keywords are read while the history is.
func (b *Builder) load(ctx context.Context, dom string, s, e time.Time, bo BuildOptions) ([]*series, error) {
	type trackedResult struct {
		ts  []rankings.Tracked
		err error
	}
	trackedc := make(chan trackedResult, 1)
	go func() {
		ts, err := b.st.Tracked(ctx, rankings.Filter{Domain: dom, Locale: bo.Locale, Device: bo.Device})
		trackedc <- trackedResult{ts, err}
	}()
	out, err := b.history(ctx, dom, s, e, bo)
	tr := <-trackedc
	if err != nil {
		return nil, fmt.Errorf("reports: ranking history: %w", err)
	}
	if tr.err != nil {
		return nil, fmt.Errorf("reports: tracked keywords: %w", tr.err)
	}
	type key struct {
		kw  string
		loc seo.Locale
		dev rankings.Device
	}
	index := make(map[key]bool, len(out))
	for _, x := range out {
		index[key{x.keyword, x.locale, x.device}] = true
	}
	for _, t := range tr.ts {
		dev := t.Device
		if dev == "" {
			dev = rankings.Desktop
		}
		k := key{t.Keyword, t.Locale, dev}
		if index[k] || (!t.AddedAt.IsZero() && day(t.AddedAt).After(e)) {
			continue
		}
		index[k] = true
		out = append(out, &series{keyword: t.Keyword, locale: t.Locale, device: dev})
	}
	return out, nil
}

// history reads the observed series of the range, through the store's
// PositionScanner when it has one.
func (b *Builder) history(ctx context.Context, dom string, s, e time.Time, bo BuildOptions) ([]*series, error) {
	nDays := int64(days(s, e))
	first := rankings.DayNumber(s)
	f := rankings.Filter{Domain: dom, Locale: bo.Locale, Device: bo.Device, From: s, To: e}
	if ps, ok := b.st.(PositionScanner); ok {
		var out []*series
		err := ps.ScanPositions(ctx, f, func(o *rankings.Observation, ds []int32, pos []float64) error {
			dev := o.Device
			if dev == "" {
				dev = rankings.Desktop
			}
			x := &series{keyword: o.Keyword, locale: o.Locale, device: dev, url: o.URL, average: o.Average}
			// Day numbers to indexes into the range, in place, dropping
			// any outside it.
			n := 0
			prev := int32(math.MinInt32)
			for i, d := range ds {
				if i > 0 && d <= prev {
					return fmt.Errorf("%T.ScanPositions: days of %q not ascending", ps, o.Keyword)
				}
				prev = d
				if rel := int64(d) - first; rel >= 0 && rel < nDays {
					ds[n], pos[n] = int32(rel), pos[i]
					n++
				}
			}
			if n > 0 {
				x.days, x.pos = ds[:n:n], pos[:n:n]
				out = append(out, x)
			}
			return nil
		})
		return out, err
	}

	type key struct {
		kw  string
		loc seo.Locale
		dev rankings.Device
	}
	var out []*series
	index := map[key]*series{}
	var cur *series
	sorted := true
	sUnix := s.Unix()
	err := rankings.ScanHistory(ctx, b.st, f, func(o *rankings.Observation) error {
		dev := o.Device
		if dev == "" {
			dev = rankings.Desktop
		}
		if cur == nil || cur.keyword != o.Keyword || cur.locale != o.Locale || cur.device != dev {
			k := key{o.Keyword, o.Locale, dev}
			cur = index[k]
			if cur == nil {
				c := min(nDays, 400)
				cur = &series{keyword: o.Keyword, locale: o.Locale, device: dev, days: make([]int32, 0, c), pos: make([]float64, 0, c)}
				index[k] = cur
				out = append(out, cur)
			}
		}
		d := o.Date.Unix() - sUnix
		if d < 0 || d >= nDays*86400 {
			return nil // outside the range: a store that ignored From/To
		}
		di := int32(d / 86400)
		p := 0.0
		if o.Position != nil {
			p = *o.Position
		}
		n := len(cur.days)
		if n > 0 && cur.days[n-1] >= di {
			sorted = false
		}
		if n == 0 || di >= cur.days[n-1] {
			cur.url, cur.average = o.URL, o.Average
		}
		cur.days = append(cur.days, di)
		cur.pos = append(cur.pos, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !sorted {
		for _, x := range out {
			sort.Stable(byDay{x})
		}
	}
	return out, nil
}

// byDay sorts a series' observations by day.
type byDay struct{ x *series }

func (b byDay) Len() int           { return len(b.x.days) }
func (b byDay) Less(i, j int) bool { return b.x.days[i] < b.x.days[j] }
func (b byDay) Swap(i, j int) {
	b.x.days[i], b.x.days[j] = b.x.days[j], b.x.days[i]
	b.x.pos[i], b.x.pos[j] = b.x.pos[j], b.x.pos[i]
}

// lookupVolumes fills series volumes through b.vol, per locale, in
// batches. It returns the sorted names of the sources that supplied
// volumes.
func (b *Builder) lookupVolumes(ctx context.Context, all []*series) ([]string, error) {
	names := []string{}
	if b.vol == nil || len(all) == 0 {
		return names, nil
	}
	byLoc := map[seo.Locale][]*series{}
	var locs []seo.Locale
	for _, s := range all {
		if _, ok := byLoc[s.locale]; !ok {
			locs = append(locs, s.locale)
		}
		byLoc[s.locale] = append(byLoc[s.locale], s)
	}
	used := map[string]bool{}
	for _, loc := range locs {
		ss := byLoc[loc]
		// want maps a folded keyword to its first series; the series of
		// one keyword (devices, spellings) are chained through next.
		want := make(map[string]int, len(ss))
		next := make([]int, len(ss))
		list := make([]string, 0, len(ss))
		for i, s := range ss {
			s.fold = keywords.FoldCase(s.keyword)
			next[i] = -1
			if j, ok := want[s.fold]; ok {
				for next[j] >= 0 {
					j = next[j]
				}
				next[j] = i
				continue
			}
			want[s.fold] = i
			list = append(list, s.keyword)
		}
		for i := 0; i < len(list); i += b.opts.VolumeBatch {
			batch := list[i:min(len(list), i+b.opts.VolumeBatch)]
			kws, err := b.vol.Volumes(ctx, batch, loc)
			if err != nil {
				return sortedKeys(used), err
			}
			for _, kw := range kws {
				if kw.Volume == nil || *kw.Volume < 0 {
					continue
				}
				j, ok := want[keywords.FoldCase(kw.Keyword)]
				for ; ok && j >= 0; j = next[j] {
					if s := ss[j]; s.volume == nil {
						v := *kw.Volume
						s.volume = &v
						if kw.Source != "" {
							used[kw.Source] = true
						}
					}
				}
			}
		}
	}
	return sortedKeys(used), nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// daysPerMonth converts monthly volumes to daily ones: 365.25 / 12 days,
// rounded as the usual 30.4.
const daysPerMonth = 30.4

func ptr[T any](v T) *T { return &v }

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

// compute makes the metrics in one pass over the series and their days.
func compute(all []*series, s, e time.Time, c *Curve, weighting string, bo BuildOptions, tr *TrafficMetrics) Metrics {
	cp := newComputation(all, s, e, c, weighting)
	for i, x := range all {
		cp.addSeries(x, &cp.infos[i])
	}
	cp.endDateAverages()
	cp.daily()
	cp.visibilityBasis(weighting)
	cp.traffic(tr)
	if bo.Keywords >= 0 {
		cp.keywordRows(bo)
	}
	return cp.m
}

// volumeKey is a keyword and locale: volumes are per keyword and locale,
// so the series of several devices share the volume.
type volumeKey struct {
	kw  string
	loc seo.Locale
}

// computation holds compute's accumulators: per day of the range, and the
// end-date sums.
type computation struct {
	all       []*series
	n         int // days in the range
	c         *Curve
	ctr1      float64
	useVolume bool
	m         Metrics
	r         *Rankings
	dates     []string

	// Daily accumulators.
	known, ranked, top3, top10 []int
	sumPos, visNum, visDen     []float64
	clicks                     []float64
	knownVol                   []int // series with a known volume known that day

	// devices counts, per keyword and locale with a volume, the series
	// observed in the range: each series' clicks are divided by it (their
	// CTRs are averaged rather than added). Nil when no series has a
	// volume.
	devices map[volumeKey]int
	monthly float64

	posSum, posAllSum float64
	// Per-series figures; KeywordRows are made only for the rows listed.
	infos []rowInfo
}

func newComputation(all []*series, s, e time.Time, c *Curve, weighting string) *computation {
	n := days(s, e)
	cp := &computation{all: all, n: n, c: c, ctr1: c.At(1), m: Metrics{CTRModel: c.Name}, r: &Rankings{Daily: make([]Day, n)}}
	cp.m.Rankings = cp.r
	withVolume := 0
	for _, x := range all {
		if x.volume != nil {
			withVolume++
		}
	}
	cp.useVolume = weighting != WeightEqual && withVolume > 0
	cp.m.VisibilityWeights = WeightEqual
	if cp.useVolume {
		cp.m.VisibilityWeights = WeightVolume
	}
	cp.dates = make([]string, n)
	for d := range cp.dates {
		cp.dates[d] = s.AddDate(0, 0, d).Format(DateLayout)
	}
	cp.known, cp.ranked, cp.top3, cp.top10 = make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	cp.sumPos, cp.visNum, cp.visDen = make([]float64, n), make([]float64, n), make([]float64, n)
	cp.clicks, cp.knownVol = make([]float64, n), make([]int, n)
	if withVolume > 0 {
		cp.devices = make(map[volumeKey]int, withVolume)
		for _, x := range all {
			if x.volume != nil && len(x.days) > 0 {
				cp.devices[volumeKey{x.fold, x.locale}]++
			}
		}
	}
	cp.infos = make([]rowInfo, len(all))
	return cp
}

// addSeries adds one series: its days, its end-date figures and its
// movement.
func (cp *computation) addSeries(x *series, row *rowInfo) {
	r := cp.r
	if len(x.days) == 0 {
		r.Unchecked++
		row.status = rowUnchecked
		return
	}
	r.Checked++
	first, last := x.pos[0], x.pos[len(x.pos)-1]
	row.first, row.last = first, last
	for _, p := range x.pos {
		if p > 0 && (row.best == 0 || p < row.best) {
			row.best = p
		}
	}
	// perDay converts a CTR into this series' share of daily clicks.
	perDay := 0.0
	if x.volume != nil {
		perDay = float64(*x.volume) / daysPerMonth / float64(cp.devices[volumeKey{x.fold, x.locale}])
	}
	cp.walkDays(x, perDay)
	cp.endDate(x, row, perDay)
	// Movement is classified in one place, rankings.MovementOf; a
	// position of 0 here means not ranked.
	var fp, lp *float64
	if first > 0 {
		fp = &first
	}
	if last > 0 {
		lp = &last
	}
	mv := rankings.MovementOf(fp, lp)
	switch mv {
	case rankings.MovedUp:
		r.Improved++
	case rankings.MovedDown:
		r.Declined++
	case rankings.Unmoved:
		r.Unchanged++
	case rankings.NewlyRanked:
		r.New++
	case rankings.Lost:
		r.Lost++
	}
	row.status = string(mv)
}

// walkDays adds a checked series to the daily accumulators, from its first
// observation, carrying each observation forward until the next one.
func (cp *computation) walkDays(x *series, perDay float64) {
	w := 1.0
	inScore := true
	if cp.useVolume {
		if x.volume == nil {
			inScore = false
		} else {
			w = float64(*x.volume)
		}
	}
	oi := 0
	d0 := int(x.days[0])
	cur, ctr := 0.0, 0.0
	for d := d0; d < cp.n; d++ {
		if oi < len(x.days) && int(x.days[oi]) <= d {
			for oi < len(x.days) && int(x.days[oi]) <= d {
				cur = x.pos[oi]
				oi++
			}
			ctr = 0
			if cur > 0 {
				ctr = cp.c.At(cur)
			}
		}
		cp.known[d]++
		if cur > 0 {
			p := cur
			cp.ranked[d]++
			cp.sumPos[d] += p
			if p <= 3 {
				cp.top3[d]++
			}
			if p <= 10 {
				cp.top10[d]++
			}
		}
		if inScore {
			cp.visNum[d] += w * ctr
			cp.visDen[d] += w * cp.ctr1
		}
		if perDay > 0 {
			cp.clicks[d] += perDay * ctr
			cp.knownVol[d]++
		}
	}
}

// endDate adds a checked series' end-date position to the top-N counts,
// the position sums and the monthly clicks.
func (cp *computation) endDate(x *series, row *rowInfo, perDay float64) {
	r, last := cp.r, row.last
	if last > 0 {
		p := last
		r.Ranked++
		cp.posSum += p
		switch {
		case p <= 3:
			r.Top3++
			fallthrough
		case p <= 10:
			r.Top10++
			fallthrough
		case p <= 20:
			r.Top20++
			fallthrough
		case p <= 100:
			r.Top100++
		}
		cp.posAllSum += min(p, 100)
	} else {
		r.NotRanked++
		cp.posAllSum += 100
	}
	if x.volume != nil {
		ctr := 0.0
		if last > 0 {
			ctr = cp.c.At(last)
		}
		cp.monthly += perDay * daysPerMonth * ctr
		row.monthlyClicks = round(float64(*x.volume)*ctr, 1)
	}
}

// endDateAverages sets the average positions on the end date, or why
// there is none.
func (cp *computation) endDateAverages() {
	r := cp.r
	r.Tracked = len(cp.all)
	switch {
	case r.Ranked > 0:
		r.AveragePosition = ptr(round(cp.posSum/float64(r.Ranked), 2))
	case r.Checked > 0:
		r.AveragePositionReason = "no keyword ranked on the end date"
	default:
		r.AveragePositionReason = noneChecked(r.Tracked)
	}
	if r.Checked > 0 {
		r.AveragePositionAll = ptr(round(cp.posAllSum/float64(r.Checked), 2))
	}
	r.AveragePositionMethod = "averagePosition: mean end-date position of ranked keywords; " +
		"averagePositionAll: mean over checked keywords counting those not in the top 100 as 100 (Semrush's method)"
}

// daily fills the figures of each day and the end date's visibility.
func (cp *computation) daily() {
	r := cp.r
	for d := 0; d < cp.n; d++ {
		dd := &r.Daily[d]
		dd.Date = cp.dates[d]
		dd.Known, dd.Ranked, dd.Top3, dd.Top10 = cp.known[d], cp.ranked[d], cp.top3[d], cp.top10[d]
		if cp.ranked[d] > 0 {
			dd.AveragePosition = ptr(round(cp.sumPos[d]/float64(cp.ranked[d]), 2))
		}
		if cp.visDen[d] > 0 {
			dd.Visibility = ptr(round(100*cp.visNum[d]/cp.visDen[d], 2))
		}
	}
	cp.m.Visibility = r.Daily[cp.n-1].Visibility
}

// visibilityBasis says which keywords the end date's visibility counts and
// how it is computed, or why there is none.
func (cp *computation) visibilityBasis(weighting string) {
	m, r, c := &cp.m, cp.r, cp.c
	basis := &m.VisibilityBasis
	basis.Unchecked = r.Unchecked
	for _, x := range cp.all {
		if len(x.days) == 0 {
			continue
		}
		if cp.useVolume && x.volume == nil {
			basis.WithoutVolume++
		} else {
			basis.Keywords++
		}
	}
	if cp.useVolume {
		basis.Method = "100 * sum(volume * CTR(position)) / sum(volume * CTR(1)) over keywords with a known volume, positions on the end date, CTR from " + c.Name
	} else {
		basis.Method = "100 * sum(CTR(position)) / (keywords * CTR(1)), every keyword weighted equally, positions on the end date, CTR from " + c.Name
		if weighting != WeightEqual {
			basis.Method += " (no keyword volume known, so equal weights)"
		}
	}
	if m.Visibility == nil {
		switch {
		case r.Checked == 0:
			m.VisibilityReason = noneChecked(r.Tracked)
		default: // checked series, none of them with a known volume
			m.VisibilityReason = "no keyword with a known volume checked in the range"
		}
	}
}

// traffic fills the traffic estimate, or says why there is none.
func (cp *computation) traffic(tr *TrafficMetrics) {
	switch {
	case cp.devices == nil && tr.VolumeError != "":
		tr.Method = "no traffic estimate: the volume source failed"
	case cp.devices == nil:
		tr.Method = "no traffic estimate: no keyword volume known"
	case len(cp.devices) == 0:
		tr.Method = "no traffic estimate: no keyword with a known volume checked in the range"
	default:
		var totalClicks float64
		for _, v := range cp.clicks {
			totalClicks += v
		}
		tr.KeywordsWithVolume = len(cp.devices)
		tr.EstimatedMonthlyClicks = ptr(round(cp.monthly, 1))
		tr.EstimatedClicks = ptr(round(totalClicks, 1))
		tr.Method = "estimate: monthly clicks = sum(volume * CTR(position on the end date)); range clicks = sum over days of volume / 30.4 * CTR(position that day); " +
			"CTR from " + cp.c.Name + "; keywords without a known volume are left out; several devices of one keyword share its volume (their CTRs are averaged over the devices observed in the range)"
		for d := range cp.r.Daily {
			if cp.knownVol[d] > 0 {
				cp.r.Daily[d].EstimatedClicks = ptr(round(cp.clicks[d], 1))
			}
		}
	}
}

// keywordRows lists the keyword rows: highest volume first, then best end
// position.
func (cp *computation) keywordRows(bo BuildOptions) {
	all, infos, r := cp.all, cp.infos, cp.r
	r.KeywordsTotal = len(all)
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	// The keys are unique per series, so an unstable sort is exact.
	slices.SortFunc(order, func(i, j int) int {
		a, b := all[i], all[j]
		if (a.volume == nil) != (b.volume == nil) {
			if a.volume != nil {
				return -1
			}
			return 1
		}
		if a.volume != nil && *a.volume != *b.volume {
			return cmp.Compare(*b.volume, *a.volume)
		}
		la, lb := infos[i].last, infos[j].last
		if (la > 0) != (lb > 0) {
			if la > 0 {
				return -1
			}
			return 1
		}
		if la > 0 && la != lb {
			return cmp.Compare(la, lb)
		}
		// Language then region orders as Locale.String() does.
		return cmp.Or(strings.Compare(a.keyword, b.keyword), strings.Compare(a.locale.Language, b.locale.Language),
			strings.Compare(a.locale.Region, b.locale.Region), strings.Compare(string(a.device), string(b.device)))
	})
	limit := bo.Keywords
	if limit == 0 {
		limit = 100
	}
	limit = min(limit, len(all))
	if limit > 0 {
		r.Keywords = make([]KeywordRow, limit)
		for i := range limit {
			r.Keywords[i] = keywordRow(all[order[i]], &infos[order[i]], cp.dates, bo.History)
		}
	}
}

// noneChecked is the reason a figure is nil when no series of the
// tracked ones was checked in the range.
func noneChecked(tracked int) string {
	if tracked == 0 {
		return "no keyword tracked or checked in the range"
	}
	return "no keyword checked in the range"
}

// rowInfo is what compute keeps of a series for its KeywordRow: positions
// are 0 when not ranked (or, for all three, not observed).
type rowInfo struct {
	first, last, best float64
	monthlyClicks     float64 // estimated, when the volume is known
	status            string
}

// keywordRow makes the KeywordRow of x, with its daily positions when
// history is set.
func keywordRow(x *series, in *rowInfo, dates []string, history bool) KeywordRow {
	row := KeywordRow{Keyword: x.keyword, Locale: x.locale.String(), Device: x.device, Volume: x.volume, Status: in.status}
	if len(x.days) == 0 {
		return row
	}
	row.First, row.Last, row.Best = position(in.first), position(in.last), position(in.best)
	row.URL, row.Average = x.url, x.average
	if in.first > 0 && in.last > 0 {
		row.Change = ptr(round(in.first-in.last, 2))
	}
	if x.volume != nil {
		row.EstimatedMonthlyClicks = ptr(in.monthlyClicks)
	}
	if history {
		// Each observation carried forward until the next one.
		row.History = make([]Point, len(dates))
		oi, cur := 0, 0.0
		for d := range dates {
			for oi < len(x.days) && int(x.days[oi]) <= d {
				cur = x.pos[oi]
				oi++
			}
			row.History[d] = Point{Date: dates[d]}
			if oi > 0 {
				row.History[d].Position = position(cur)
			}
		}
	}
	return row
}

// Traffic is what a connected analytics source measured for a domain over
// a range. Nil fields were not measured by that source.
type Traffic struct {
	Source      string         `json:"source"` // driver name: "searchconsole", "ga4"
	Clicks      *int           `json:"clicks,omitempty"`
	Impressions *int           `json:"impressions,omitempty"`
	CTR         *float64       `json:"ctr,omitempty"`      // clicks / impressions
	Sessions    *int           `json:"sessions,omitempty"` // GA4 organic sessions
	Daily       []DailyTraffic `json:"daily,omitempty"`
}

// DailyTraffic is one day of measured traffic.
type DailyTraffic struct {
	Date        string `json:"date"` // YYYY-MM-DD
	Clicks      *int   `json:"clicks,omitempty"`
	Impressions *int   `json:"impressions,omitempty"`
	Sessions    *int   `json:"sessions,omitempty"`
}

// TrafficSource is the driver interface for measured traffic (Search
// Console, GA4). Provider failures wrap seo.ErrUnavailable or
// seo.ErrRateLimited. Implementations run reportstest.RunTrafficSource.
type TrafficSource interface {
	Name() string
	Traffic(ctx context.Context, domain string, start, end time.Time) (*Traffic, error)
}
