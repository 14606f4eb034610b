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
	"net/url"
	"strings"
	"time"

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

// Kinds of sitemap file, the values of [Info.Kind].
const (
	KindURLSet = "urlset"
	KindIndex  = "sitemapindex"
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

// Entry is one URL of a urlset, one child sitemap of a sitemap index, or
// one line of a text sitemap.
type Entry struct {
	// Loc is the absolute URL, whitespace trimmed.
	Loc string
	// LastMod is the <lastmod> as written; LastModValid says it parsed as a
	// W3C Datetime, into LastModTime.
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
	// Kind is "urlset", "sitemapindex" or "text"; empty when the root
	// element is none of these.
	Kind string
	// URLs counts the entries read (the <url> or <sitemap> elements, or the
	// non-empty lines), valid or not. Reading stops at MaxURLs.
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
// sitemapindex) and plain-text sitemaps (one URL per line) are read.
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
	u, err := seo.ParseHref(e.Loc)
	if e.Loc == "" || err != nil || !seo.IsAbsoluteRef(e.Loc) || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		detail := "not an absolute http(s) URL"
		if e.Loc == "" {
			detail = "missing <loc>"
		}
		rd.issue(IssueLocNotAbsolute, e.Loc, detail)
		return nil
	}
	if e.LastMod != "" {
		e.LastMod = strings.TrimSpace(e.LastMod)
		if t, ok := ParseLastMod(e.LastMod); ok {
			e.LastModValid, e.LastModTime = true, t
			if t.Sub(rd.now) > futureLastModAllowed {
				rd.issue(IssueLastModFuture, e.Loc, "lastmod "+e.LastMod+" is more than a day ahead")
			}
		} else {
			rd.issue(IssueLastModInvalid, e.Loc, "lastmod "+clip(e.LastMod)+" is not a W3C Datetime")
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

func (rd *reader) readXML(fn func(Entry) error) error {
	guard := &runGuard{r: rd.in}
	dec := xml.NewDecoder(guard)
	var (
		depth    int
		rootNS   string
		index    bool
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
			switch depth {
			case 1:
				switch t.Name.Local {
				case KindURLSet, KindIndex:
					rd.info.Kind = t.Name.Local
					index = t.Name.Local == KindIndex
				default:
					rd.issue(IssueWrongRoot, "", "root element <"+t.Name.Local+">, want <urlset> or <sitemapindex>")
					return nil
				}
				rootNS = t.Name.Space
				if rootNS != Namespace && rootNS != "https://www.sitemaps.org/schemas/sitemap/0.9" {
					ns := rootNS
					if ns == "" {
						ns = "none"
					}
					rd.issue(IssueWrongNamespace, "", "namespace "+ns+", want "+Namespace)
				}
			case 2:
				want := "url"
				if index {
					want = "sitemap"
				}
				if t.Name.Local == want && t.Name.Space == rootNS {
					if !rd.countEntry() {
						return nil
					}
					inEntry, cur = true, Entry{}
				}
			case 3:
				if !inEntry {
					break
				}
				switch {
				case t.Name.Space == rootNS && (t.Name.Local == "loc" || t.Name.Local == "lastmod"):
					field = t.Name.Local
					text.Reset()
					fieldLen = 0
				case t.Name.Local == "link" && !index:
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
			switch depth {
			case 3:
				if field == "loc" {
					cur.Loc = text.String()
				} else if field == "lastmod" {
					cur.LastMod = text.String()
					if cur.LastMod == "" {
						cur.LastMod = " " // present but empty: invalid
					}
				}
				field = ""
			case 2:
				if inEntry {
					inEntry = false
					if err := rd.entry(cur, index, fn); err != nil {
						return err
					}
				}
			}
			depth--
		}
	}
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
			if e := rd.entry(Entry{Loc: s}, false, fn); e != nil {
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
