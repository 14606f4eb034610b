package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seokit/seokit/seo"
)

// Limits of the sitemaps.org protocol, the defaults of [Options].
const (
	// MaxURLs is the most URLs (or child sitemaps) one file may list.
	MaxURLs = 50000
	// MaxBytes is the largest a file may be, uncompressed: 50 MB.
	MaxBytes = 52428800
)

// Namespace is the sitemaps.org XML namespace.
const Namespace = "http://www.sitemaps.org/schemas/sitemap/0.9"

// Feed namespaces: Atom 1.0 (RFC 4287) and Atom 0.3, the two Atom versions
// Google reads as sitemaps. RSS 2.0 has no namespace.
const (
	AtomNamespace   = "http://www.w3.org/2005/Atom"
	Atom03Namespace = "http://purl.org/atom/ns#"
)

// Kinds of sitemap file, the values of [Info.Kind]. Google Search Central
// ("Build and submit a sitemap") accepts XML sitemaps, RSS 2.0 and Atom
// 0.3/1.0 feeds, and text files of one URL per line.
const (
	KindURLSet = "urlset"
	KindIndex  = "sitemapindex"
	KindRSS    = "rss"
	KindAtom   = "atom"
	KindText   = "text"
)

// Issue kinds, the values of [Issue.Kind].
const (
	IssueInvalidXML      = "invalid_xml"
	IssueWrongRoot       = "wrong_root"
	IssueWrongNamespace  = "wrong_namespace"
	IssueLocNotAbsolute  = "loc_not_absolute"
	IssueLastModInvalid  = "lastmod_invalid"
	IssueLastModFuture   = "lastmod_future"
	IssueForeignURL      = "foreign_url"
	maxIssuesPerKind     = 100
	maxFieldBytes        = 8 << 10 // longest loc or lastmod kept
	maxRunBytes          = 1 << 20 // longest stretch of XML without '<'
	futureLastModAllowed = 24 * time.Hour
)

// Entry is one URL of a urlset, one child sitemap of a sitemap index, one
// item of an RSS feed or entry of an Atom feed, or one line of a text
// sitemap.
type Entry struct {
	// Loc is the absolute URL, whitespace trimmed: a urlset's or index's
	// <loc>, an RSS item's <link>, an Atom entry's <link href> whose rel is
	// "alternate" (or absent), or a text line.
	Loc string
	// Child: Loc names a child sitemap (the file is a sitemap index), not a
	// page.
	Child bool
	// LastMod is the date as written (<lastmod>; an RSS item's <pubDate>,
	// RFC 822; an Atom entry's <updated>, or <modified> in Atom 0.3);
	// LastModValid says it parsed, into LastModTime.
	LastMod      string
	LastModValid bool
	LastModTime  time.Time
	// Alternates are the <xhtml:link rel="alternate" hreflang=...> children.
	Alternates []Alternate
}

// Alternate is one language alternate of a URL.
type Alternate struct{ Hreflang, Href string }

// Info describes one sitemap file read.
type Info struct {
	// Kind is "urlset", "sitemapindex", "rss", "atom" or "text"; empty
	// when the root element is none of these. XML documents are recognised
	// by their parsed root element (local name and namespace), so a
	// namespace prefix (<sm:urlset xmlns:sm=...>) reads as well as none.
	Kind string
	// URLs counts the entries read (the <url> or <sitemap> elements, RSS
	// <item>s, Atom <entry>s, or the non-empty lines), valid or not.
	// Reading stops at MaxURLs.
	URLs int
	// Bytes counts the uncompressed bytes read.
	Bytes int64
	// TooManyURLs: the file lists more than MaxURLs entries; reading stopped
	// at the first entry past the limit.
	TooManyURLs bool
	// TooLarge: the file is larger than MaxBytes uncompressed; reading
	// stopped there.
	TooLarge bool
	// Issues are the problems found, at most 100 of each kind; IssueCounts
	// counts them all by kind.
	Issues      []Issue
	IssueCounts map[string]int
}

// Issue is one problem in a sitemap file.
type Issue struct {
	// Kind is one of the Issue constants.
	Kind string
	// Loc is the URL (or value) concerned, if any.
	Loc string
	// Detail explains the problem.
	Detail string
}

// Options configure [Read]. The zero value applies the protocol's limits.
type Options struct {
	// MaxURLs is the most entries read; zero means 50,000.
	MaxURLs int
	// MaxBytes is the most uncompressed bytes read; zero means 50 MB
	// (52,428,800 bytes).
	MaxBytes int64
	// Now returns the current time for lastmod_future; nil means time.Now.
	Now func() time.Time
	// SitemapURL is the sitemap's own URL. When set, entries on another
	// scheme or host, or (in a urlset) outside the sitemap's directory, are
	// reported as foreign_url.
	SitemapURL string
	// AllowedHosts are hosts whose robots.txt names this sitemap
	// (cross-submission): their URLs are not foreign, whatever their path.
	AllowedHosts []string
}

// Read streams a sitemap from r and calls fn for each entry with an absolute
// http(s) Loc (entries without one are reported as loc_not_absolute and
// skipped). A gzip stream is recognised by its magic bytes and decompressed,
// the size cap applying to the uncompressed bytes. XML sitemaps (urlset or
// sitemapindex), RSS 2.0 and Atom feeds, and plain-text sitemaps (one URL
// per line, UTF-8) are read, with the same caps on entries and bytes.
//
// A malformed document is not an error: Read returns what it read with an
// invalid_xml issue. The error is non-nil only when ctx ends, r fails, or fn
// returns an error (which Read returns as is). Memory stays bounded
// whatever the file size.
func Read(ctx context.Context, r io.Reader, opts *Options, fn func(Entry) error) (*Info, error) {
	rd := newReader(ctx, r, opts)
	info, err := rd.read(fn)
	info.Bytes = rd.limit.n
	if rd.limit.tooLarge {
		info.TooLarge = true
	}
	if err != nil {
		return info, err
	}
	if rd.src.err != nil {
		return info, fmt.Errorf("sitemap: read: %w", rd.src.err)
	}
	if err := ctx.Err(); err != nil {
		return info, err
	}
	return info, nil
}

type reader struct {
	ctx      context.Context
	src      *srcReader
	limit    *limitReader
	in       *bufio.Reader // uncompressed, limited
	maxURLs  int
	now      time.Time
	base     *url.URL
	basePath string
	allowed  map[string]bool
	info     *Info
}

func newReader(ctx context.Context, r io.Reader, opts *Options) *reader {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxURLs <= 0 {
		o.MaxURLs = MaxURLs
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = MaxBytes
	}
	now := time.Now()
	if o.Now != nil {
		now = o.Now()
	}
	rd := &reader{ctx: ctx, maxURLs: o.MaxURLs, now: now, info: &Info{IssueCounts: map[string]int{}}}
	rd.src = &srcReader{ctx: ctx, r: r}
	rd.limit = &limitReader{ctx: ctx, max: o.MaxBytes}
	if o.SitemapURL != "" {
		if u, err := seo.ParseHref(o.SitemapURL); err == nil && u.Host != "" {
			rd.base = u
			p := u.EscapedPath()
			if i := strings.LastIndexByte(p, '/'); i >= 0 {
				p = p[:i+1]
			} else {
				p = "/"
			}
			rd.basePath = p
		}
	}
	if len(o.AllowedHosts) > 0 {
		rd.allowed = map[string]bool{}
		for _, h := range o.AllowedHosts {
			rd.allowed[strings.ToLower(strings.TrimSuffix(h, "."))] = true
		}
	}
	return rd
}

// srcReader remembers the source's error and stops when ctx ends.
type srcReader struct {
	ctx context.Context
	r   io.Reader
	err error
}

var errStopped = errors.New("sitemap: stopped")

func (s *srcReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, errStopped
	}
	if s.ctx.Err() != nil {
		return 0, errStopped
	}
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
		return n, errStopped
	}
	return n, err
}

// limitReader counts uncompressed bytes and stops past max or when ctx
// ends (a gzip stream can expand a lot between reads of the source).
type limitReader struct {
	ctx      context.Context
	r        io.Reader
	n, max   int64
	tooLarge bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.ctx.Err() != nil {
		return 0, errStopped
	}
	if l.n >= l.max {
		// Is there more? Read one byte to tell a file of exactly max bytes
		// from a larger one.
		var one [1]byte
		n, err := io.ReadFull(l.r, one[:])
		if n > 0 {
			l.tooLarge = true
			return 0, errStopped
		}
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		return 0, err
	}
	if rem := l.max - l.n; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

// runGuard fails XML whose text or markup runs over maxRunBytes without a
// '<', which no sitemap has and which would make the XML decoder buffer it.
type runGuard struct {
	r   io.Reader
	run int
	hit bool
}

var errLongRun = errors.New("more than 1 MiB of text without markup")

func (g *runGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	b := p[:n]
	if i := bytes.LastIndexByte(b, '<'); i >= 0 {
		g.run = len(b) - i - 1
	} else {
		g.run += len(b)
	}
	if g.run > maxRunBytes {
		g.hit = true
		return n, errLongRun
	}
	return n, err
}

func (rd *reader) read(fn func(Entry) error) (*Info, error) {
	br := bufio.NewReaderSize(rd.src, 32<<10)
	var plain io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			if rd.src.err == nil && rd.ctx.Err() == nil {
				rd.issue(IssueInvalidXML, "", "gzip: "+err.Error())
			}
			return rd.info, nil
		}
		zr.Multistream(true)
		plain = gzipErrors{zr}
	}
	rd.limit.r = plain
	rd.in = bufio.NewReaderSize(rd.limit, 32<<10)
	isXML, err := rd.isXML()
	if err != nil {
		switch {
		case rd.stopped():
		case err == io.EOF:
			rd.issue(IssueInvalidXML, "", "empty file")
		default:
			rd.issue(IssueInvalidXML, "", err.Error())
		}
		return rd.info, nil
	}
	if isXML {
		return rd.info, rd.readXML(fn)
	}
	rd.info.Kind = KindText
	return rd.info, rd.readText(fn)
}

// isXML skips a BOM and whitespace and reports whether markup follows.
func (rd *reader) isXML() (bool, error) {
	for {
		b, err := rd.in.Peek(1)
		if len(b) == 0 {
			if err == nil {
				err = io.EOF
			}
			return false, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			rd.in.ReadByte()
			continue
		case 0xEF:
			if bom, _ := rd.in.Peek(3); bytes.Equal(bom, []byte("\xEF\xBB\xBF")) {
				rd.in.Discard(3)
				continue
			}
		}
		return b[0] == '<', nil
	}
}

// gzipErrors names decompression errors as such.
type gzipErrors struct{ r io.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF && err != errStopped {
		err = fmt.Errorf("gzip: %w", err)
	}
	return n, err
}

func (rd *reader) issue(kind, loc, detail string) {
	rd.info.IssueCounts[kind]++
	if rd.info.IssueCounts[kind] <= maxIssuesPerKind {
		rd.info.Issues = append(rd.info.Issues, Issue{Kind: kind, Loc: clip(loc), Detail: detail})
	}
}

// stopped reports whether reading ended for a reason other than the
// document itself (limit, ctx, source error).
func (rd *reader) stopped() bool {
	return rd.limit.tooLarge || rd.src.err != nil || rd.ctx.Err() != nil
}

// entry checks a finished entry and hands it to fn.
func (rd *reader) entry(e Entry, index bool, fn func(Entry) error) error {
	e.Loc = strings.TrimSpace(e.Loc)
	e.Child = index
	u, err := seo.ParseHref(e.Loc)
	if e.Loc == "" || err != nil || !seo.IsAbsoluteRef(e.Loc) || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		detail := "not an absolute http(s) URL"
		if e.Loc == "" {
			switch rd.info.Kind {
			case KindRSS:
				detail = "item without <link>"
			case KindAtom:
				detail = `entry without <link href> of rel "alternate"`
			default:
				detail = "missing <loc>"
			}
		}
		rd.issue(IssueLocNotAbsolute, e.Loc, detail)
		return nil
	}
	if e.LastMod != "" {
		e.LastMod = strings.TrimSpace(e.LastMod)
		field, format := "lastmod", "a W3C Datetime"
		parse := ParseLastMod
		switch rd.info.Kind {
		case KindRSS:
			field, format, parse = "pubDate", "an RFC 822 date", parsePubDate
		case KindAtom:
			field, format = "updated", "an RFC 3339 date"
		}
		if t, ok := parse(e.LastMod); ok {
			e.LastModValid, e.LastModTime = true, t
			if t.Sub(rd.now) > futureLastModAllowed {
				rd.issue(IssueLastModFuture, e.Loc, field+" "+e.LastMod+" is more than a day ahead")
			}
		} else {
			rd.issue(IssueLastModInvalid, e.Loc, field+" "+clip(e.LastMod)+" is not "+format)
		}
	}
	if reason := rd.foreign(u, index); reason != "" {
		rd.issue(IssueForeignURL, e.Loc, reason)
	}
	return fn(e)
}

// foreign says why u may not appear in this sitemap, or "".
func (rd *reader) foreign(u *url.URL, index bool) string {
	if rd.base == nil {
		return ""
	}
	// Cross-submission through robots.txt allows other hosts and folders,
	// never another scheme.
	if !strings.EqualFold(u.Scheme, rd.base.Scheme) {
		return "scheme differs from the sitemap's"
	}
	host := strings.ToLower(u.Hostname())
	if rd.allowed[host] {
		return ""
	}
	if host != strings.ToLower(rd.base.Hostname()) || portOf(u) != portOf(rd.base) {
		return "host differs from the sitemap's"
	}
	if !index && !strings.HasPrefix(u.EscapedPath(), rd.basePath) && !(u.EscapedPath() == "" && rd.basePath == "/") {
		return "outside the sitemap's directory " + rd.basePath
	}
	return ""
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// countEntry counts a new entry; false means the limit was passed.
func (rd *reader) countEntry() bool {
	if rd.info.URLs >= rd.maxURLs {
		rd.info.TooManyURLs = true
		return false
	}
	rd.info.URLs++
	return true
}

// shape says where a kind of XML document keeps its entries.
type shape struct {
	entryDepth int    // depth of the entry elements (the root is 1)
	entry      string // their local name
	parent     string // local name of the element holding them, when not the root
}

var shapes = map[string]shape{
	KindURLSet: {2, "url", ""},
	KindIndex:  {2, "sitemap", ""},
	KindRSS:    {3, "item", "channel"},
	KindAtom:   {2, "entry", ""},
}

// rootKind names the kind of document a root element starts, and the
// namespace it should have ("" when any will do); kind is "" for a root
// that is no sitemap. Names are compared as parsed, after namespace
// resolution, so a prefixed root (<sm:sitemapindex>) is recognised.
func rootKind(n xml.Name) (kind, wantNS string) {
	switch n.Local {
	case KindURLSet, KindIndex:
		return n.Local, Namespace
	case "rss":
		return KindRSS, ""
	case "feed":
		return KindAtom, AtomNamespace
	}
	return "", ""
}

func (rd *reader) readXML(fn func(Entry) error) error {
	guard := &runGuard{r: rd.in}
	dec := xml.NewDecoder(guard)
	var (
		depth    int
		rootNS   string
		sh       shape
		index    bool
		inParent bool
		inEntry  bool
		cur      Entry
		field    string // "loc" or "lastmod" being read
		text     strings.Builder
		fieldLen int
	)
	for {
		tok, err := dec.Token()
		if err != nil {
			if err == io.EOF {
				if depth > 0 {
					rd.issue(IssueInvalidXML, "", "unexpected end of file")
				} else if rd.info.Kind == "" && rd.info.IssueCounts[IssueWrongRoot] == 0 {
					rd.issue(IssueInvalidXML, "", "no root element")
				}
				return nil
			}
			if rd.stopped() {
				return nil
			}
			detail := err.Error()
			if guard.hit {
				detail = errLongRun.Error()
			}
			rd.issue(IssueInvalidXML, "", detail)
			return nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				kind, wantNS := rootKind(t.Name)
				if kind == "" {
					rd.issue(IssueWrongRoot, "", "root element <"+t.Name.Local+">, want <urlset>, <sitemapindex>, <rss> or <feed>")
					return nil
				}
				rd.info.Kind, sh, index = kind, shapes[kind], kind == KindIndex
				rootNS = t.Name.Space
				if ns := rootNS; !nsOK(kind, ns) {
					if ns == "" {
						ns = "none"
					}
					rd.issue(IssueWrongNamespace, "", "namespace "+ns+", want "+wantNS)
				}
				break
			}
			switch {
			case depth == sh.entryDepth-1 && sh.parent != "":
				inParent = t.Name.Local == sh.parent && t.Name.Space == rootNS
			case depth == sh.entryDepth:
				if t.Name.Local == sh.entry && t.Name.Space == rootNS && (sh.parent == "" || inParent) {
					if !rd.countEntry() {
						return nil
					}
					inEntry, cur = true, Entry{}
				}
			case depth == sh.entryDepth+1 && inEntry:
				field = ""
				if t.Name.Space == rootNS {
					field = fieldOf(rd.info.Kind, t.Name.Local)
				}
				switch {
				case field == "href":
					// An Atom <link>: the entry's URL is the href of its
					// first link whose rel is "alternate", the default.
					field = ""
					href, rel := "", ""
					for _, at := range t.Attr {
						switch at.Name.Local {
						case "href":
							href = at.Value
						case "rel":
							rel = strings.TrimSpace(at.Value)
						}
					}
					if cur.Loc == "" && (rel == "" || rel == "alternate") {
						cur.Loc = clipField(href)
						if cur.Loc == "" {
							cur.Loc = " " // present but empty: not absolute
						}
					}
				case field != "":
					text.Reset()
					fieldLen = 0
				case t.Name.Local == "link" && rd.info.Kind == KindURLSet:
					var a Alternate
					var rel string
					for _, at := range t.Attr {
						switch at.Name.Local {
						case "rel":
							rel = at.Value
						case "hreflang":
							a.Hreflang = at.Value
						case "href":
							a.Href = at.Value
						}
					}
					if strings.EqualFold(rel, "alternate") && len(cur.Alternates) < 1000 {
						cur.Alternates = append(cur.Alternates, a)
					}
				}
			}
		case xml.CharData:
			if field != "" && fieldLen < maxFieldBytes {
				b := []byte(t)
				if fieldLen+len(b) > maxFieldBytes {
					b = b[:maxFieldBytes-fieldLen]
				}
				text.Write(b)
				fieldLen += len(b)
			}
		case xml.EndElement:
			switch {
			case depth == sh.entryDepth+1 && inEntry:
				if field == "loc" && strings.TrimSpace(cur.Loc) == "" {
					cur.Loc = text.String()
				} else if field == "lastmod" {
					cur.LastMod = text.String()
					if cur.LastMod == "" {
						cur.LastMod = " " // present but empty: invalid
					}
				}
				field = ""
			case depth == sh.entryDepth && inEntry:
				inEntry = false
				if err := rd.entry(cur, index, fn); err != nil {
					return err
				}
			case depth == sh.entryDepth-1:
				inParent = false
			}
			depth--
		}
	}
}

// nsOK reports whether ns is a namespace the kind of document may have.
func nsOK(kind, ns string) bool {
	switch kind {
	case KindURLSet, KindIndex:
		return ns == Namespace || ns == "https://www.sitemaps.org/schemas/sitemap/0.9"
	case KindAtom:
		return ns == AtomNamespace || ns == Atom03Namespace
	}
	return true // RSS 2.0 has no namespace; one more does no harm
}

// fieldOf maps an entry's child element to what it gives: "loc" (its text
// is the URL), "href" (its href attribute is), "lastmod", or "".
func fieldOf(kind, local string) string {
	switch kind {
	case KindURLSet, KindIndex:
		if local == "loc" || local == "lastmod" {
			return local
		}
	case KindRSS:
		switch local {
		case "link":
			return "loc"
		case "pubDate":
			return "lastmod"
		}
	case KindAtom:
		switch local {
		case "link":
			return "href"
		case "updated", "modified":
			return "lastmod"
		}
	}
	return ""
}

func clipField(s string) string {
	if len(s) <= maxFieldBytes {
		return s
	}
	return s[:maxFieldBytes]
}

// parsePubDate parses an RSS <pubDate>: an RFC 822 date, as RFC 5322
// (net/mail) reads it, which also takes the two-digit years and named
// zones RFC 822 allows.
func parsePubDate(s string) (time.Time, bool) {
	t, err := mail.ParseDate(s)
	return t, err == nil
}

func (rd *reader) readText(fn func(Entry) error) error {
	for {
		line, err := rd.in.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// Over-long line: skip to its end; it cannot be a URL we use.
			for err == bufio.ErrBufferFull {
				_, err = rd.in.ReadSlice('\n')
			}
			if !rd.countEntry() {
				return nil
			}
			rd.issue(IssueLocNotAbsolute, clip(string(line)), "line longer than the buffer")
			if err != nil {
				return nil
			}
			continue
		}
		if s := strings.TrimSpace(string(line)); s != "" {
			if !rd.countEntry() {
				return nil
			}
			if !utf8.ValidString(s) {
				// Google reads text sitemaps as UTF-8 only.
				rd.issue(IssueLocNotAbsolute, strings.ToValidUTF8(s, "\uFFFD"), "line is not UTF-8")
			} else if e := rd.entry(Entry{Loc: s}, false, fn); e != nil {
				return e
			}
		}
		if err != nil {
			if err != io.EOF && !rd.stopped() {
				rd.issue(IssueInvalidXML, "", err.Error())
			}
			return nil
		}
	}
}

// ParseLastMod parses a W3C Datetime as sitemaps use it: YYYY, YYYY-MM,
// YYYY-MM-DD, or a date with hh:mm, hh:mm:ss or hh:mm:ss.s and a time zone
// ("Z" or "+hh:mm"). Dates without a time are midnight UTC.
func ParseLastMod(s string) (time.Time, bool) {
	var layout string
	switch n := len(s); {
	case n == 4:
		layout = "2006"
	case n == 7:
		layout = "2006-01"
	case n == 10:
		layout = "2006-01-02"
	case n > 10 && s[10] == 'T':
		rest := s[11:]
		colons := 0
		for i := 0; i < len(rest) && rest[i] != 'Z' && rest[i] != '+' && rest[i] != '-'; i++ {
			if rest[i] == ':' {
				colons++
			}
		}
		switch colons {
		case 1:
			layout = "2006-01-02T15:04Z07:00"
		case 2:
			layout = "2006-01-02T15:04:05Z07:00"
		default:
			return time.Time{}, false
		}
		if strings.IndexByte(s, ',') >= 0 {
			return time.Time{}, false // Go accepts a comma before fractions; W3C does not
		}
	default:
		return time.Time{}, false
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

func clip(s string) string {
	const max = 300
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
