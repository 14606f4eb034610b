package logs

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/seo"
	"github.com/seokit/seokit/seo/robotstxt"
)

// Options configures Analyze. Zero values are the defaults.
type Options struct {
	// Format is the format of every input; "" or FormatAuto sniffs each
	// input's first lines. FormatNginx needs LogFormat.
	Format Format
	// LogFormat is a custom nginx log_format (or Apache LogFormat) string,
	// used when Format is FormatNginx or "".
	LogFormat string
	// Fields is the field map of JSON lines; nil tries Cloudflare's,
	// CloudFront's and the generic names (GenericFields).
	Fields *FieldMap
	// Verifier verifies bot hits; nil leaves every bot hit unverifiable
	// ("verification off").
	Verifier *Verifier
	// StripQuery drops query strings from the URLs of the report.
	StripQuery bool
	// HashAddress, when set, replaces the client addresses the report
	// keeps (the samples of spoofed hits, in Bots and Findings) with what
	// it returns: a keyed hash keeps them comparable without keeping them.
	// The report then keeps no text of malformed lines either
	// (MalformedLine.Text is empty): a line that did not parse may hold
	// anyone's address, bot or not, where no field can be hashed.
	HashAddress func(netip.Addr) string
	// MaxURLs caps the URLs tracked one by one; the hits of further URLs
	// go to Report.OtherURLs. Zero means 50,000.
	MaxURLs int
	// TopURLs caps Report.URLs; zero means 100.
	TopURLs int
	// MaxDirectories caps the directories tracked; zero means 1,000.
	MaxDirectories int
	// MaxDays caps the days kept per class and bot; zero means 400.
	MaxDays int
	// MaxLineBytes caps a line; longer lines are malformed ("line too
	// long") and skipped without being held. Zero means 64 KiB.
	MaxLineBytes int
	// MaxMalformedSamples caps Report.MalformedSample; zero means 20.
	MaxMalformedSamples int
	// Crawl is a crawl of the same site to join the log with
	// (Report.Join); nil skips the join.
	Crawl compare.Source
	// Robots is the site's robots.txt, for "robots.txt says, the bot did"
	// (Join.Disallowed); nil leaves Join.Disallowed not checked.
	Robots *robotstxt.Robots
	// MaxCrawlPages caps the crawl's pages read for the join; zero means
	// 200,000.
	MaxCrawlPages int
	// Progress, when set, is called after every ProgressLines lines (zero
	// means 1,000,000) and once at the end of each input.
	Progress      func(Progress)
	ProgressLines int64
}

// Progress is the state of a running analysis.
type Progress struct {
	Input     string
	Lines     int64 // lines read from every input so far
	InputRead int64 // bytes read from the current input (compressed)
	Done      bool  // the current input is finished
}

// Caps of the analysis that are not options.
const (
	// MaxTargetBytes caps a request target tracked one by one.
	MaxTargetBytes = 1024
	maxHosts       = 100
	maxReasons     = 20
	maxSpoofSample = 10
	batchLines     = 4096
	batchBytes     = 4 << 20
	maxURLStatuses = 8
)

func (o *Options) defaults() Options {
	var d Options
	if o != nil {
		d = *o
	}
	def := func(v *int, n int) {
		if *v <= 0 {
			*v = n
		}
	}
	def(&d.MaxURLs, 50_000)
	def(&d.TopURLs, 100)
	def(&d.MaxDirectories, 1_000)
	def(&d.MaxDays, 400)
	def(&d.MaxLineBytes, 64<<10)
	def(&d.MaxMalformedSamples, 20)
	def(&d.MaxCrawlPages, 200_000)
	if d.ProgressLines <= 0 {
		d.ProgressLines = 1_000_000
	}
	if d.Format == "" {
		d.Format = FormatAuto
		if d.LogFormat != "" {
			d.Format = FormatNginx
		}
	}
	return d
}

// validate checks the options an input cannot be read without.
func (o *Options) validate() error {
	switch o.Format {
	case FormatAuto, FormatCombined, FormatCommon, FormatW3C, FormatJSON:
	case FormatNginx:
		if o.LogFormat == "" {
			return &seo.InputError{Field: "logFormat", Reason: "format nginx needs a log format string", Err: seo.ErrInvalidInput}
		}
	default:
		return &seo.InputError{Field: "format", Value: clip(string(o.Format), 40), Reason: "want auto, combined, common, w3c, json or nginx", Err: seo.ErrInvalidInput}
	}
	if o.LogFormat != "" {
		if _, err := NewNginxParser(o.LogFormat); err != nil {
			return &seo.InputError{Field: "logFormat", Value: clip(o.LogFormat, 80), Reason: strings.TrimPrefix(err.Error(), "logs: "), Err: seo.ErrInvalidInput}
		}
	}
	return nil
}

// parserFor returns the parser of an input, sniffing it when the format is
// auto.
func (o *Options) parserFor(br *bufio.Reader) (Parser, Format, error) {
	switch o.Format {
	case FormatCombined:
		p, err := NewNginxParser(CombinedFormat)
		return &fallbackParser{p: p, alt: mustParser(VhostCombinedFormat)}, FormatCombined, err
	case FormatCommon:
		p, err := NewNginxParser(CommonFormat)
		return p, FormatCommon, err
	case FormatNginx:
		if o.LogFormat == "" {
			return nil, "", fmt.Errorf("logs: format nginx needs a log format string: %w", errFormat)
		}
		p, err := NewNginxParser(o.LogFormat)
		return p, FormatNginx, err
	case FormatW3C:
		return NewW3CParser(), FormatW3C, nil
	case FormatJSON:
		return NewJSONParser(o.Fields), FormatJSON, nil
	case FormatAuto:
	default:
		return nil, "", fmt.Errorf("logs: unknown format %q: %w", o.Format, errFormat)
	}
	// Peek at the first lines without consuming them.
	peek, _ := br.Peek(32 << 10)
	lines := strings.Split(string(peek), "\n")
	if len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last may be cut
	}
	if len(lines) > 20 {
		lines = lines[:20]
	}
	f, str := Sniff(lines)
	switch f {
	case FormatJSON:
		return NewJSONParser(o.Fields), f, nil
	case FormatW3C:
		return NewW3CParser(), f, nil
	case FormatCombined, FormatCommon:
		return mustParser(str), f, nil
	}
	if len(strings.TrimSpace(string(peek))) == 0 {
		return mustParser(CombinedFormat), FormatCombined, nil
	}
	return nil, "", fmt.Errorf("logs: cannot tell the format from the first lines (give -format): %w", ErrMalformed)
}

func mustParser(f string) Parser {
	p, err := NewNginxParser(f)
	if err != nil {
		panic(err)
	}
	return p
}

// fallbackParser tries p, then alt (combined, then vhost combined).
type fallbackParser struct{ p, alt Parser }

func (f *fallbackParser) Parse(line string, e *Entry) (bool, error) {
	ok, err := f.p.Parse(line, e)
	if err != nil {
		if ok2, err2 := f.alt.Parse(line, e); err2 == nil {
			return ok2, nil
		}
	}
	return ok, err
}

// Analyze reads the inputs in order, line by line, and returns the report.
// Memory is bounded by the options' caps whatever the inputs' size
// (MEMORY.md). A malformed line is counted and sampled, never fatal; an
// input that cannot be opened or read is recorded in its InputStats and
// the next is read. When ctx ends, the report so far is returned with
// Status "stopped" and ctx's error.
//
// Options that cannot work (an unknown Format, a LogFormat that does not
// compile, FormatNginx without one) are a *seo.InputError naming the
// field ("format", "logFormat"), before any input is read.
func Analyze(ctx context.Context, inputs []Input, opts *Options) (*Report, error) {
	o := opts.defaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	a := newAggregator(&o)
	if o.Verifier != nil {
		ctx, a.lookups = withLookupBudget(ctx)
	}
	var stopErr error
	for _, in := range inputs {
		st := InputStats{Name: in.Name}
		err := a.readInput(ctx, in, &st)
		if err != nil {
			st.Error = err.Error()
		}
		a.rep.Inputs = append(a.rep.Inputs, st)
		if ctx.Err() != nil {
			stopErr = ctx.Err()
			break
		}
	}
	rep := a.finish(ctx)
	if stopErr != nil {
		rep.Status, rep.Reason = "stopped", stopErr.Error()
		return rep, stopErr
	}
	return rep, nil
}

type pending struct {
	e    Entry
	bot  *Bot
	line int64
}

func (a *aggregator) readInput(ctx context.Context, in Input, st *InputStats) error {
	if in.Open == nil {
		return errors.New("logs: input has no opener")
	}
	rc, err := in.Open()
	if err != nil {
		return fmt.Errorf("logs: open %s: %w", in.Name, err)
	}
	defer rc.Close()
	br, zc, err := openLines(rc, &st.Bytes)
	if err != nil {
		return err
	}
	defer zc.Close()
	p, f, err := a.o.parserFor(br)
	if err != nil {
		return err
	}
	st.Format = f
	var scratch []byte
	batch := make([]pending, 0, batchLines)
	size := 0
	flush := func() {
		a.addBatch(ctx, batch)
		batch, size = batch[:0], 0
	}
	defer func() {
		if a.o.Progress != nil {
			a.o.Progress(Progress{Input: in.Name, Lines: a.rep.Lines, InputRead: st.Bytes, Done: true})
		}
	}()
	for {
		line, err := readLine(ctx, br, a.o.MaxLineBytes, &scratch)
		if err == io.EOF {
			break
		}
		if err != nil && err != errLineTooLong {
			flush()
			return fmt.Errorf("logs: read %s: %w", in.Name, err)
		}
		a.rep.Lines++
		st.Lines++
		if a.rep.Lines%a.o.ProgressLines == 0 && a.o.Progress != nil {
			a.o.Progress(Progress{Input: in.Name, Lines: a.rep.Lines, InputRead: st.Bytes})
		}
		if err == errLineTooLong {
			a.malformed(in.Name, st, "line too long", "")
			continue
		}
		var e Entry
		ok, perr := p.Parse(line, &e)
		if perr != nil {
			a.malformed(in.Name, st, strings.TrimPrefix(perr.Error(), "logs: "), line)
			continue
		}
		if !ok {
			continue
		}
		st.Requests++
		batch = append(batch, pending{e: e, bot: a.matchBot(e.UserAgent), line: st.Lines})
		size += len(line)
		if len(batch) == batchLines || size >= batchBytes {
			flush() // when ctx has ended, its bot hits are unverifiable ("stopped")
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	flush()
	return nil
}

func (a *aggregator) malformed(input string, st *InputStats, reason, line string) {
	a.rep.Malformed++
	st.Malformed++
	if _, ok := a.rep.MalformedReasons[reason]; ok || len(a.rep.MalformedReasons) < maxReasons {
		a.rep.MalformedReasons[reason]++
	} else {
		a.rep.MalformedReasons["other"]++
	}
	if len(a.rep.MalformedSample) < a.o.MaxMalformedSamples {
		text := ""
		if a.o.HashAddress == nil {
			text = clip(line, 200)
		}
		a.rep.MalformedSample = append(a.rep.MalformedSample, MalformedLine{Input: input, Line: st.Lines, Reason: reason, Text: text})
	}
}

// clip cuts s to at most n bytes on a UTF-8 boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return strings.Clone(s)
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return strings.Clone(s[:n]) + "…"
}

// addBatch verifies the batch's new bot addresses concurrently, then
// counts every request of the batch.
func (a *aggregator) addBatch(ctx context.Context, batch []pending) {
	verdicts := make([]Verdict, len(batch))
	if v := a.o.Verifier; v != nil {
		var reqs []VerifyRequest
		var at []int
		seen := map[verifyKey]int{}
		for i := range batch {
			b := batch[i].bot
			if b == nil {
				continue
			}
			ip := batch[i].e.IP
			if !ip.IsValid() || !b.Verifiable() {
				verdicts[i] = v.Verify(ctx, b, ip)
				continue
			}
			if c, ok := v.Cached(b, ip); ok {
				verdicts[i] = c
				continue
			}
			k := key(b, ip)
			j, ok := seen[k]
			if !ok {
				j = len(reqs)
				seen[k] = j
				reqs = append(reqs, VerifyRequest{Bot: b, IP: ip})
				a.verified++
			}
			at = append(at, i, j)
		}
		if len(reqs) > 0 {
			out := v.VerifyAll(ctx, reqs)
			for k := 0; k < len(at); k += 2 {
				verdicts[at[k]] = out[at[k+1]]
			}
		}
	} else {
		for i := range batch {
			if batch[i].bot != nil {
				verdicts[i] = Verdict{Status: Unverifiable, Reason: "verification off"}
			}
		}
	}
	for i := range batch {
		a.add(&batch[i].e, batch[i].bot, verdicts[i])
	}
}

// aggregator holds the bounded state of an analysis.
type aggregator struct {
	o        *Options
	rep      Report
	classes  map[Class]*agg
	bots     map[*Bot]*botAgg
	days     map[int32]*dayAgg
	urls     map[string]*urlAgg
	other    OtherURLs
	otherHLL *hll
	dirs     map[string]*DirStats
	hosts    map[string]int64
	verified int64
	lookups  *lookupBudget // this analysis's DNS verifications; nil without a Verifier
	uaCache  map[string]*Bot
}

// maxUACache caps the user agents whose bot is remembered; a log of
// endless distinct user agents is matched token by token beyond it.
const maxUACache = 10_000

// matchBot is classify remembered per user agent: logs repeat a few
// hundred user agents millions of times.
func (a *aggregator) matchBot(ua string) *Bot {
	if b, ok := a.uaCache[ua]; ok {
		return b
	}
	b := classify(ua)
	if len(a.uaCache) < maxUACache && len(ua) <= 512 {
		a.uaCache[strings.Clone(ua)] = b
	}
	return b
}

type agg struct {
	hits, bytes int64
	status      StatusMix
	durSum      time.Duration
	durN        int64
	urls        *hll
	days        map[int32]*dayAgg
	droppedDays int64
	hours       [24]int64
	robots      int64
	first, last time.Time
}

type botAgg struct {
	agg
	bot                    *Bot
	verified, unverifiable int64
	spoofed                int64
	spoofIPs               *hll
	spoofSample            []SpoofedSample
	spoofAddrs             []netip.Addr // the addresses of spoofSample
	reasons                map[string]int64
}

type dayAgg struct {
	hits, bytes int64
	status      StatusMix
	durSum      time.Duration
	durN        int64
}

type urlAgg struct {
	hits     int64
	byClass  [nClasses]int64
	status   StatusMix
	last     int16
	statuses []int16
	bots     []urlBot
}

// urlBot is one bot's hits on a URL.
type urlBot struct {
	bot  *Bot
	hits int64
	last int64 // Unix seconds
}

// nClasses is the number of bot classes; classIndex maps a class to its
// slot in urlAgg.byClass.
const nClasses = 6

func classIndex(c Class) int {
	for i, k := range classes {
		if k == c {
			return i
		}
	}
	return nClasses - 1
}

func classMap(a *[nClasses]int64) map[Class]int64 {
	m := map[Class]int64{}
	for i, n := range a {
		if n > 0 {
			m[classes[i]] = n
		}
	}
	return m
}

func newAggregator(o *Options) *aggregator {
	return &aggregator{
		o:        o,
		rep:      Report{Status: "complete", MalformedReasons: map[string]int64{}},
		classes:  map[Class]*agg{},
		bots:     map[*Bot]*botAgg{},
		days:     map[int32]*dayAgg{},
		urls:     map[string]*urlAgg{},
		otherHLL: newHLL(),
		dirs:     map[string]*DirStats{},
		hosts:    map[string]int64{},
		uaCache:  map[string]*Bot{},
	}
}

func dayOf(t time.Time) int32 { return int32(t.Unix() / 86400) }

func (s *StatusMix) add(code int, n int64) {
	switch code / 100 {
	case 2:
		s.S2xx += n
	case 3:
		s.S3xx += n
	case 4:
		s.S4xx += n
	case 5:
		s.S5xx += n
	default:
		s.Other += n
	}
}

func (d *dayAgg) add(e *Entry) {
	d.hits++
	d.bytes += e.Bytes
	d.status.add(e.Status, 1)
	if e.Duration >= 0 {
		d.durSum += e.Duration
		d.durN++
	}
}

func (g *agg) add(e *Entry, target string, maxDays int, robots bool) {
	g.hits++
	g.bytes += e.Bytes
	g.status.add(e.Status, 1)
	if e.Duration >= 0 {
		g.durSum += e.Duration
		g.durN++
	}
	if g.urls == nil {
		g.urls = newHLL()
	}
	g.urls.add(hashString(target))
	if g.days == nil {
		g.days = map[int32]*dayAgg{}
	}
	day := dayOf(e.Time)
	d := g.days[day]
	if d == nil {
		if len(g.days) >= maxDays {
			g.droppedDays++
		} else {
			d = &dayAgg{}
			g.days[day] = d
		}
	}
	if d != nil {
		d.add(e)
	}
	g.hours[e.Time.Hour()]++
	if robots {
		g.robots++
	}
	if g.first.IsZero() || e.Time.Before(g.first) {
		g.first = e.Time
	}
	if e.Time.After(g.last) {
		g.last = e.Time
	}
}

// target returns the URL key of a request.
func (a *aggregator) target(e *Entry) string {
	t := e.Target
	if a.o.StripQuery {
		if i := strings.IndexByte(t, '?'); i >= 0 {
			t = t[:i]
		}
	}
	return t
}

func (a *aggregator) add(e *Entry, b *Bot, v Verdict) {
	r := &a.rep
	r.Requests++
	r.Totals.Hits++
	r.Totals.Bytes += e.Bytes
	if r.First.IsZero() || e.Time.Before(r.First) {
		r.First = e.Time
	}
	if e.Time.After(r.Last) {
		r.Last = e.Time
	}
	day := dayOf(e.Time)
	d := a.days[day]
	if d == nil && len(a.days) < a.o.MaxDays {
		d = &dayAgg{}
		a.days[day] = d
	}
	if d != nil {
		d.add(e)
	} else {
		r.HitsOutsideDays++
	}
	if e.Host != "" {
		h := strings.ToLower(e.Host)
		if _, ok := a.hosts[h]; ok || len(a.hosts) < maxHosts {
			a.hosts[strings.Clone(h)]++
		} else {
			a.hosts["(other)"]++
		}
	}
	target := a.target(e)
	robots := target == "/robots.txt"
	if b == nil {
		a.class(ClassNone).add(e, target, a.o.MaxDays, false)
		return
	}
	r.Totals.BotHits++
	ba := a.bots[b]
	if ba == nil {
		ba = &botAgg{bot: b}
		a.bots[b] = ba
	}
	switch v.Status {
	case Spoofed:
		r.Totals.SpoofedHits++
		ba.spoofed++
		if ba.spoofIPs == nil {
			ba.spoofIPs = newHLL()
		}
		if e.IP.IsValid() {
			ba.spoofIPs.add(hashAddr(e.IP))
			ba.sampleSpoof(a, e.IP, v.Reason)
		}
		return
	case Verified:
		r.Totals.VerifiedHits++
		ba.verified++
	default:
		r.Totals.UnverifiableHits++
		ba.unverifiable++
		if ba.reasons == nil {
			ba.reasons = map[string]int64{}
		}
		if _, ok := ba.reasons[v.Reason]; ok || len(ba.reasons) < maxReasons {
			ba.reasons[v.Reason]++
		} else {
			ba.reasons["other"]++
		}
	}
	if robots {
		r.Totals.RobotsFetches++
	}
	ba.add(e, target, a.o.MaxDays, robots)
	a.class(b.Class).add(e, target, a.o.MaxDays, robots)
	a.addURL(e, target, b)
}

func hashAddr(ip netip.Addr) uint64 {
	b := ip.As16()
	return hashString(string(b[:]))
}

// addrText is how the report shows a client address (Options.HashAddress).
func (a *aggregator) addrText(ip netip.Addr) string {
	if a.o.HashAddress != nil {
		return a.o.HashAddress(ip)
	}
	return ip.String()
}

func (ba *botAgg) sampleSpoof(a *aggregator, ip netip.Addr, reason string) {
	for i, sa := range ba.spoofAddrs {
		if sa == ip {
			ba.spoofSample[i].Hits++
			return
		}
	}
	if len(ba.spoofSample) < maxSpoofSample {
		ba.spoofAddrs = append(ba.spoofAddrs, ip)
		ba.spoofSample = append(ba.spoofSample, SpoofedSample{IP: a.addrText(ip), Hits: 1, Reason: reason})
	}
}

func (a *aggregator) class(c Class) *agg {
	g := a.classes[c]
	if g == nil {
		g = &agg{}
		a.classes[c] = g
	}
	return g
}

// dirOf returns the first path segment of a target, with slashes: "/blog/"
// for "/blog/post", "/" for "/page".
func dirOf(target string) string {
	p := target
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if !strings.HasPrefix(p, "/") {
		return "(other)"
	}
	if i := strings.IndexByte(p[1:], '/'); i >= 0 {
		return p[:i+2]
	}
	return "/"
}

func (a *aggregator) addURL(e *Entry, target string, b *Bot) {
	dir := dirOf(target)
	ds := a.dirs[dir]
	if ds == nil {
		if len(a.dirs) >= a.o.MaxDirectories {
			dir = "(other)"
			ds = a.dirs[dir]
		}
		if ds == nil {
			ds = &DirStats{Dir: strings.Clone(dir), ByClass: map[Class]int64{}}
			a.dirs[ds.Dir] = ds
		}
	}
	ds.Hits++
	ds.ByClass[b.Class]++

	if len(target) > MaxTargetBytes {
		a.other.Hits++
		a.other.TooLong++
		a.otherHLL.add(hashString(target))
		return
	}
	u := a.urls[target]
	if u == nil {
		if len(a.urls) >= a.o.MaxURLs {
			a.other.Hits++
			a.otherHLL.add(hashString(target))
			return
		}
		u = &urlAgg{}
		a.urls[strings.Clone(target)] = u
	}
	u.hits++
	u.byClass[classIndex(b.Class)]++
	u.status.add(e.Status, 1)
	u.last = int16(e.Status)
	if !slices.Contains(u.statuses, int16(e.Status)) && len(u.statuses) < maxURLStatuses {
		u.statuses = append(u.statuses, int16(e.Status))
	}
	at := e.Time.Unix()
	for i := range u.bots {
		if u.bots[i].bot == b {
			u.bots[i].hits++
			u.bots[i].last = max(u.bots[i].last, at)
			return
		}
	}
	u.bots = append(u.bots, urlBot{bot: b, hits: 1, last: at})
}

func mean(sum time.Duration, n int64) *float64 {
	if n == 0 {
		return nil
	}
	m := float64(sum) / float64(n) / float64(time.Millisecond)
	m = float64(int64(m*100+0.5)) / 100
	return &m
}

func (a *aggregator) dayList(m map[int32]*dayAgg) []DayStats {
	out := make([]DayStats, 0, len(m))
	for k, d := range m {
		out = append(out, DayStats{Date: time.Unix(int64(k)*86400, 0).UTC().Format(time.DateOnly), Hits: d.hits, Bytes: d.bytes,
			Status: d.status, MeanResponseMS: mean(d.durSum, d.durN)})
	}
	slices.SortFunc(out, func(x, y DayStats) int { return strings.Compare(x.Date, y.Date) })
	return out
}

func (a *aggregator) stats(c Class, g *agg) Stats {
	// Hits on days past MaxDays are in the counts, in no day.
	s := Stats{Class: c, Hits: g.hits, Bytes: g.bytes, Status: g.status, MeanResponseMS: mean(g.durSum, g.durN),
		ResponseTimes: g.durN, RobotsFetches: g.robots, FirstSeen: g.first, LastSeen: g.last, Days: a.dayList(g.days),
		HitsOutsideDays: g.droppedDays}
	if g.urls != nil {
		s.DistinctURLs = Estimate{Value: g.urls.estimate(), Approximate: true}
	}
	for h := range g.hours {
		if g.hours[h] > g.hours[s.PeakHour] {
			s.PeakHour = h
		}
	}
	return s
}

func (a *aggregator) finish(ctx context.Context) *Report {
	r := &a.rep
	for _, c := range append(slices.Clone(classes[:]), ClassNone) {
		if g := a.classes[c]; g != nil {
			s := a.stats(c, g)
			if c == ClassNone {
				s.Class = "none"
			}
			r.Classes = append(r.Classes, s)
		}
	}
	for b, ba := range a.bots {
		bs := BotStats{Bot: *b, Stats: a.stats(b.Class, &ba.agg), Verified: ba.verified, Unverifiable: ba.unverifiable,
			Spoofed: ba.spoofed, SpoofedSample: ba.spoofSample, UnverifiableReasons: ba.reasons}
		if ba.spoofIPs != nil {
			bs.SpoofedIPs = Estimate{Value: ba.spoofIPs.estimate(), Approximate: true}
		}
		r.Bots = append(r.Bots, bs)
	}
	slices.SortFunc(r.Bots, func(x, y BotStats) int {
		return cmp.Or(cmp.Compare(y.Hits+y.Spoofed, x.Hits+x.Spoofed), strings.Compare(x.Bot.Token, y.Bot.Token))
	})
	r.Days = a.dayList(a.days)
	r.URLsTracked = len(a.urls)
	r.URLs = a.topURLs(a.o.TopURLs)
	r.Truncated.Note("urls", len(a.urls), len(r.URLs))
	r.OtherURLs = a.other
	if a.other.Hits > 0 {
		r.OtherURLs.URLs = Estimate{Value: a.otherHLL.estimate(), Approximate: true}
	}
	for _, d := range a.dirs {
		r.Directories = append(r.Directories, *d)
	}
	slices.SortFunc(r.Directories, func(x, y DirStats) int { return cmp.Or(cmp.Compare(y.Hits, x.Hits), strings.Compare(x.Dir, y.Dir)) })
	for h, n := range a.hosts {
		r.Hosts = append(r.Hosts, HostStats{Host: h, Hits: n})
	}
	slices.SortFunc(r.Hosts, func(x, y HostStats) int { return cmp.Or(cmp.Compare(y.Hits, x.Hits), strings.Compare(x.Host, y.Host)) })
	if v := a.o.Verifier; v != nil {
		r.Verification = VerificationStats{Enabled: true, Lookups: int(a.lookups.used.Load()), Addresses: a.verified}
	}
	if len(r.MalformedReasons) == 0 {
		r.MalformedReasons = nil
	}
	if a.o.Crawl != nil && ctx.Err() == nil {
		r.Join = a.join(ctx)
	}
	r.Findings = a.findings()
	// Empty lists are [] in JSON, not null: null means "not computed".
	r.Inputs, r.Classes, r.Bots = nonNil(r.Inputs), nonNil(r.Classes), nonNil(r.Bots)
	r.Days, r.URLs, r.Directories = nonNil(r.Days), nonNil(r.URLs), nonNil(r.Directories)
	return r
}

// urlStats renders one tracked URL.
func urlStats(t string, u *urlAgg) URLStats {
	s := URLStats{URL: t, Hits: u.hits, ByClass: classMap(&u.byClass), Status: u.status, LastStatus: int(u.last),
		LastCrawl: map[string]time.Time{}}
	for _, st := range u.statuses {
		s.Statuses = append(s.Statuses, int(st))
	}
	slices.Sort(s.Statuses)
	for _, ub := range u.bots {
		s.LastCrawl[ub.bot.Token] = time.Unix(ub.last, 0).UTC()
	}
	return s
}

func (a *aggregator) topURLs(n int) []URLStats {
	keys := make([]string, 0, len(a.urls))
	for k := range a.urls {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y string) int {
		return cmp.Or(cmp.Compare(a.urls[y].hits, a.urls[x].hits), strings.Compare(x, y))
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	out := make([]URLStats, len(keys))
	for i, k := range keys {
		out[i] = urlStats(k, a.urls[k])
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
