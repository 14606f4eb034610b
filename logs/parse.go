package logs

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/seo"
)

// Entry is one request read from a log. Its strings may share memory with
// the line they came from: a Parser's caller copies what it keeps.
type Entry struct {
	Time time.Time
	// Host is the virtual host the request was for; "" when the log has no
	// host field.
	Host string
	// IP is the client address; invalid when the log has none or it did
	// not parse.
	IP     netip.Addr
	Method string
	// Target is the request target: path and query as sent.
	Target    string
	Status    int
	Bytes     int64
	Referer   string
	UserAgent string
	// Duration is the response time; negative when the log does not
	// record it.
	Duration time.Duration
}

// Format names a log format.
type Format string

// Log formats. FormatAuto sniffs each input's first lines.
const (
	FormatAuto     Format = "auto"
	FormatCombined Format = "combined" // Apache/Nginx combined, with an optional leading vhost field
	FormatCommon   Format = "common"   // Common Log Format
	FormatW3C      Format = "w3c"      // W3C extended (IIS, CloudFront standard logs), driven by #Fields
	FormatJSON     Format = "json"     // JSON lines (Cloudflare Logpush, CloudFront, generic with a field map)
	FormatNginx    Format = "nginx"    // a custom nginx log_format string (Options.LogFormat)
)

// ErrMalformed is wrapped by the errors of lines that do not parse; the
// text after "logs: " is the reason counted in the report.
var ErrMalformed = errors.New("logs: malformed line")

type malformed string

func (m malformed) Error() string { return "logs: " + string(m) }
func (m malformed) Unwrap() error { return ErrMalformed }

// Parser parses lines of one format. Parse fills e from line and returns an
// error wrapping ErrMalformed when the line is not a request of the format;
// ok is false for lines that carry no request (W3C directives, blank lines).
type Parser interface {
	Parse(line string, e *Entry) (ok bool, err error)
}

// Named nginx log_format strings. Combined and common are also Apache's
// formats of the same name; vhost_combined is Apache's "%v:%p" variant.
const (
	CombinedFormat      = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`
	CommonFormat        = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent`
	VhostCombinedFormat = `$host:$server_port $remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`
)

// field ids of a compiled log format.
type fieldID uint8

const (
	fIgnore fieldID = iota
	fIP
	fTimeLocal
	fTimeISO
	fMsec
	fRequest
	fMethod
	fURI
	fArgs
	fStatus
	fBytes
	fReferer
	fUA
	fHost
	fReqTime  // seconds, fractional
	fReqTimeU // microseconds (Apache %D)
	fReqTimeMS
)

var nginxVars = map[string]fieldID{
	"remote_addr": fIP, "http_x_forwarded_for": fIgnore, "realip_remote_addr": fIP, "binary_remote_addr": fIgnore,
	"time_local": fTimeLocal, "time_iso8601": fTimeISO, "msec": fMsec,
	"request": fRequest, "request_method": fMethod, "request_uri": fURI, "uri": fURI, "document_uri": fURI, "args": fArgs, "query_string": fArgs,
	"status": fStatus, "body_bytes_sent": fBytes, "bytes_sent": fBytes,
	"http_referer": fReferer, "http_user_agent": fUA,
	"host": fHost, "server_name": fHost, "http_host": fHost,
	"request_time": fReqTime, "upstream_response_time": fReqTime,
}

type segment struct {
	lit   string // literal text before the field
	field fieldID
	name  string
}

// nginxParser parses lines of a compiled log_format.
type nginxParser struct {
	segs []segment
	tail string // literal after the last field
}

// NewNginxParser compiles an nginx log_format string ($variables between
// literal text) into a Parser. Unknown variables are read and ignored.
// Apache LogFormat strings ("%h %l %u %t \"%r\" %>s %b ...") are accepted
// too, translated by their directives.
func NewNginxParser(format string) (Parser, error) {
	if strings.Contains(format, "%") && !strings.Contains(format, "$") {
		var err error
		if format, err = apacheToNginx(format); err != nil {
			return nil, err
		}
	}
	p := &nginxParser{}
	lit := strings.Builder{}
	for i := 0; i < len(format); {
		c := format[i]
		if c != '$' {
			lit.WriteByte(c)
			i++
			continue
		}
		j := i + 1
		brace := j < len(format) && format[j] == '{'
		if brace {
			j++
		}
		k := j
		for k < len(format) && (format[k] == '_' || format[k] >= 'a' && format[k] <= 'z' || format[k] >= 'A' && format[k] <= 'Z' || format[k] >= '0' && format[k] <= '9') {
			k++
		}
		name := strings.ToLower(format[j:k])
		if name == "" {
			lit.WriteByte(c)
			i++
			continue
		}
		if brace {
			if k >= len(format) || format[k] != '}' {
				return nil, fmt.Errorf("logs: log format: unclosed ${ at %d: %w", i, errFormat)
			}
			k++
		}
		if len(p.segs) > 0 && lit.Len() == 0 {
			return nil, fmt.Errorf("logs: log format: $%s follows another variable with nothing between: %w", name, errFormat)
		}
		id := nginxVars[name]
		p.segs = append(p.segs, segment{lit: lit.String(), field: id, name: name})
		lit.Reset()
		i = k
	}
	p.tail = lit.String()
	if len(p.segs) == 0 {
		return nil, fmt.Errorf("logs: log format has no $variable: %w", errFormat)
	}
	if len(p.segs) > 64 {
		return nil, fmt.Errorf("logs: log format has more than 64 variables: %w", errFormat)
	}
	return p, nil
}

// errFormat is wrapped by the errors of a bad format string or format name:
// input errors of the caller.
var errFormat = fmt.Errorf("invalid log format: %w", seo.ErrInvalidInput)

// apacheToNginx translates an Apache LogFormat string.
func apacheToNginx(f string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			if f[i] == '\\' && i+1 < len(f) && f[i+1] == '"' {
				continue
			}
			b.WriteByte(f[i])
			continue
		}
		i++
		if i < len(f) && f[i] == '>' {
			i++
		}
		arg := ""
		if i < len(f) && f[i] == '{' {
			end := strings.IndexByte(f[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("logs: log format: unclosed %%{: %w", errFormat)
			}
			arg = strings.ToLower(f[i+1 : i+end])
			i += end + 1
		}
		if i >= len(f) {
			return "", fmt.Errorf("logs: log format ends in %%: %w", errFormat)
		}
		v := ""
		switch f[i] {
		case 'h', 'a':
			v = "$remote_addr"
		case 'l':
			v = "$remote_logname"
		case 'u':
			v = "$remote_user"
		case 't':
			v = "[$time_local]"
		case 'r':
			v = "$request"
		case 's':
			v = "$status"
		case 'b', 'B', 'O':
			v = "$body_bytes_sent"
		case 'v', 'V':
			v = "$host"
		case 'p':
			v = "$server_port"
		case 'D':
			v = "$request_time_us"
		case 'T':
			v = "$request_time"
		case 'm':
			v = "$request_method"
		case 'U':
			v = "$uri"
		case 'q':
			v = "$args"
		case 'i':
			switch arg {
			case "referer":
				v = "$http_referer"
			case "user-agent":
				v = "$http_user_agent"
			case "host":
				v = "$host"
			default:
				v = "$http_" + strings.ReplaceAll(arg, "-", "_")
			}
		case '%':
			b.WriteByte('%')
			continue
		default:
			v = "$apache_" + string(f[i])
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

func init() { nginxVars["request_time_us"] = fReqTimeU }

// Parse implements Parser.
func (p *nginxParser) Parse(line string, e *Entry) (bool, error) {
	line = strings.TrimRight(line, "\r\n")
	if strings.TrimSpace(line) == "" {
		return false, nil
	}
	*e = Entry{Duration: -1}
	rest := line
	var reqTarget string
	for i, s := range p.segs {
		if !strings.HasPrefix(rest, s.lit) {
			return false, malformed("line does not match the format")
		}
		rest = rest[len(s.lit):]
		next := p.tail
		if i+1 < len(p.segs) {
			next = p.segs[i+1].lit
		}
		var val string
		quoted := strings.HasSuffix(s.lit, `"`) && strings.HasPrefix(next, `"`)
		switch {
		case next == "" && i == len(p.segs)-1:
			val, rest = rest, ""
		case quoted:
			end := quoteEnd(rest)
			if end < 0 {
				return false, malformed("unterminated quoted field $" + s.name)
			}
			val, rest = rest[:end], rest[end:]
		default:
			end := strings.Index(rest, next)
			if end < 0 {
				return false, malformed("line does not match the format")
			}
			val, rest = rest[:end], rest[end:]
		}
		if err := p.set(e, s.field, val, &reqTarget); err != nil {
			return false, err
		}
	}
	if !strings.HasPrefix(rest, p.tail) {
		return false, malformed("line does not match the format")
	}
	if reqTarget != "" && e.Target == "" {
		e.Target = reqTarget
	}
	if e.Time.IsZero() {
		return false, malformed("no timestamp")
	}
	if e.Target == "" {
		return false, malformed("no request target")
	}
	return true, nil
}

// quoteEnd returns the index of the closing quote of a quoted field, skipping
// quotes escaped with a backslash (Apache writes \", nginx \x22).
func quoteEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func (p *nginxParser) set(e *Entry, f fieldID, v string, args *string) error {
	switch f {
	case fIP:
		if v == "-" || v == "" {
			return nil
		}
		ip, err := netip.ParseAddr(v)
		if err != nil {
			return malformed("client address is not an IP address")
		}
		e.IP = ip.Unmap()
	case fTimeLocal:
		t, ok := parseCLFTime(v)
		if !ok {
			return malformed("timestamp is not a CLF date")
		}
		e.Time = t
	case fTimeISO, fMsec:
		t, ok := parseTime(v)
		if !ok {
			return malformed("timestamp is not ISO 8601 or epoch")
		}
		e.Time = t
	case fRequest:
		m, rest, ok := strings.Cut(v, " ")
		if !ok || m == "" {
			return malformed("request line is not METHOD TARGET PROTOCOL")
		}
		target := rest
		if i := strings.LastIndexByte(rest, ' '); i >= 0 && strings.HasPrefix(rest[i+1:], "HTTP/") {
			target = rest[:i]
		}
		if target == "" {
			return malformed("request line has no target")
		}
		e.Method, e.Target = m, target
	case fMethod:
		e.Method = v
	case fURI:
		if e.Target == "" {
			e.Target = v
		} else {
			e.Target = v + e.Target
		}
	case fArgs:
		if v != "" && v != "-" {
			if e.Target != "" {
				e.Target += "?" + v
			} else {
				*args = "?" + v
			}
		}
	case fStatus:
		n, ok := atoi(v)
		if !ok || n < 100 || n > 999 {
			return malformed("status is not a 3-digit code")
		}
		e.Status = n
	case fBytes:
		if v == "-" {
			return nil
		}
		n, ok := atoi(v)
		if !ok {
			return malformed("byte count is not a number")
		}
		e.Bytes = int64(n)
	case fReferer:
		if v != "-" {
			e.Referer = v
		}
	case fUA:
		if v != "-" {
			e.UserAgent = v
		}
	case fHost:
		if v != "-" {
			e.Host = v
		}
	case fReqTime, fReqTimeU, fReqTimeMS:
		if v == "-" || v == "" {
			return nil
		}
		if i := strings.IndexAny(v, ", "); i >= 0 { // several upstreams
			v = v[:i]
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x < 0 || x > 1e12 {
			return malformed("response time is not a number")
		}
		switch f {
		case fReqTime:
			e.Duration = time.Duration(x * float64(time.Second))
		case fReqTimeU:
			e.Duration = time.Duration(x * float64(time.Microsecond))
		default:
			e.Duration = time.Duration(x * float64(time.Millisecond))
		}
	}
	return nil
}

// atoi parses a non-negative decimal of at most 19 digits that fits an
// int64.
func atoi(s string) (int, bool) {
	if s == "" || len(s) > 19 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (1<<63-1-int(c-'0'))/10 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

var months = map[string]time.Month{"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6, "Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12}

// parseCLFTime parses "10/Oct/2000:13:55:36 -0700" (brackets removed).
func parseCLFTime(s string) (time.Time, bool) {
	if len(s) != 26 || s[2] != '/' || s[6] != '/' || s[11] != ':' || s[14] != ':' || s[17] != ':' || s[20] != ' ' {
		return time.Time{}, false
	}
	d, ok1 := atoi(s[0:2])
	mon, ok2 := months[s[3:6]]
	y, ok3 := atoi(s[7:11])
	h, ok4 := atoi(s[12:14])
	mi, ok5 := atoi(s[15:17])
	sec, ok6 := atoi(s[18:20])
	zh, ok7 := atoi(s[22:24])
	zm, ok8 := atoi(s[24:26])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && ok8) || (s[21] != '+' && s[21] != '-') ||
		d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || zh > 23 || zm > 59 {
		return time.Time{}, false
	}
	off := (zh*60 + zm) * 60
	if s[21] == '-' {
		off = -off
	}
	t := time.Date(y, mon, d, h, mi, sec, 0, time.UTC).Add(-time.Duration(off) * time.Second)
	return t, true
}

// parseTime parses ISO 8601 / RFC 3339 timestamps (with or without zone,
// "T" or space) and epoch seconds, milliseconds, microseconds or
// nanoseconds (told apart by magnitude), with an optional fraction.
func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	if c := s[0]; c >= '0' && c <= '9' && !strings.ContainsAny(s, "-:T") {
		return parseEpoch(s)
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), true
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999Z0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	if t, ok := parseCLFTime(strings.Trim(s, "[]")); ok {
		return t, true
	}
	return time.Time{}, false
}

func parseEpoch(s string) (time.Time, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	n, ok := atoi(whole)
	if !ok {
		return time.Time{}, false
	}
	var t time.Time
	switch {
	case n < 1e11: // seconds until year 5138
		t = time.Unix(int64(n), 0)
		if frac != "" {
			if len(frac) > 9 {
				frac = frac[:9]
			}
			f, ok := atoi(frac)
			if !ok {
				return time.Time{}, false
			}
			for i := len(frac); i < 9; i++ {
				f *= 10
			}
			t = t.Add(time.Duration(f))
		}
	case n < 1e14:
		t = time.UnixMilli(int64(n))
	case n < 1e17:
		t = time.UnixMicro(int64(n))
	default:
		t = time.Unix(0, int64(n))
	}
	return t.UTC(), true
}
