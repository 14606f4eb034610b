package logs

import (
	"encoding/json"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// w3cParser parses W3C extended log files (IIS, CloudFront standard logs):
// "#Fields:" directives name the columns of the lines that follow,
// separated by spaces (IIS) or tabs (CloudFront).
type w3cParser struct {
	cols []string // lower-case field names
	idx  w3cIndex
}

type w3cIndex struct {
	date, time, ip, method, stem, query, status, bytes, ua, referer, host, taken, timeTakenSec int
}

// NewW3CParser returns a Parser of W3C extended logs. Lines before the
// first #Fields directive are malformed.
func NewW3CParser() Parser { return &w3cParser{} }

func (p *w3cParser) Parse(line string, e *Entry) (bool, error) {
	line = strings.TrimRight(line, "\r\n")
	if strings.TrimSpace(line) == "" {
		return false, nil
	}
	if line[0] == '#' {
		if rest, ok := strings.CutPrefix(line, "#Fields:"); ok {
			p.setFields(strings.Fields(rest))
		}
		return false, nil
	}
	if p.cols == nil {
		return false, malformed("W3C line before any #Fields directive")
	}
	var vals [64]string
	n := 0
	sep := " "
	if strings.IndexByte(line, '\t') >= 0 {
		sep = "\t"
	}
	for s := line; ; {
		i := strings.Index(s, sep)
		if n == len(vals) {
			return false, malformed("W3C line has more than 64 fields")
		}
		if i < 0 {
			vals[n] = s
			n++
			break
		}
		vals[n] = s[:i]
		n++
		s = s[i+1:]
	}
	if n != len(p.cols) {
		return false, malformed("W3C line has " + strconv.Itoa(n) + " fields, #Fields names " + strconv.Itoa(len(p.cols)))
	}
	get := func(i int) string {
		if i < 0 || vals[i] == "-" {
			return ""
		}
		return vals[i]
	}
	*e = Entry{Duration: -1}
	x := p.idx
	ts := get(x.date) + "T" + get(x.time) + "Z"
	t, err := time.Parse("2006-01-02T15:04:05.999999999Z", ts)
	if err != nil {
		return false, malformed("W3C date and time do not parse")
	}
	e.Time = t
	if v := get(x.ip); v != "" {
		ip, err := netip.ParseAddr(v)
		if err != nil {
			return false, malformed("client address is not an IP address")
		}
		e.IP = ip.Unmap()
	}
	e.Method = get(x.method)
	e.Target = get(x.stem)
	if e.Target == "" {
		return false, malformed("no request target")
	}
	if q := get(x.query); q != "" {
		e.Target += "?" + q
	}
	st, ok := atoi(get(x.status))
	if !ok || st < 100 || st > 999 {
		return false, malformed("status is not a 3-digit code")
	}
	e.Status = st
	if v := get(x.bytes); v != "" {
		b, ok := atoi(v)
		if !ok {
			return false, malformed("byte count is not a number")
		}
		e.Bytes = int64(b)
	}
	e.UserAgent = w3cText(get(x.ua))
	e.Referer = get(x.referer)
	e.Host = get(x.host)
	if v := get(x.taken); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return false, malformed("time-taken is not a number")
		}
		if x.timeTakenSec >= 0 {
			e.Duration = time.Duration(f * float64(time.Second))
		} else {
			e.Duration = time.Duration(f * float64(time.Millisecond))
		}
	}
	return true, nil
}

// w3cText decodes a W3C text field: IIS writes spaces as "+", CloudFront
// percent-encodes.
func w3cText(s string) string {
	if strings.IndexByte(s, '%') >= 0 {
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
	}
	return strings.ReplaceAll(s, "+", " ")
}

func (p *w3cParser) setFields(cols []string) {
	if len(cols) > 64 {
		cols = cols[:64]
	}
	p.cols = make([]string, len(cols))
	x := w3cIndex{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
	cloudfront := false
	for i, c := range cols {
		c = strings.ToLower(c)
		p.cols[i] = c
		switch c {
		case "date":
			x.date = i
		case "time":
			x.time = i
		case "c-ip":
			x.ip = i
		case "cs-method":
			x.method = i
		case "cs-uri-stem":
			x.stem = i
		case "cs-uri-query":
			x.query = i
		case "sc-status":
			x.status = i
		case "sc-bytes":
			x.bytes = i
		case "cs(user-agent)":
			x.ua = i
		case "cs(referer)", "cs(referrer)":
			x.referer = i
		case "cs-host", "cs(host)", "x-host-header":
			if x.host < 0 || c == "x-host-header" {
				x.host = i
			}
		case "time-taken":
			x.taken = i
		case "x-edge-location", "x-edge-request-id":
			cloudfront = true
		}
	}
	if cloudfront { // CloudFront writes time-taken in seconds, IIS in milliseconds
		x.timeTakenSec = 1
	}
	p.idx = x
}

// FieldMap names the keys of a JSON lines log, per field of an Entry. A
// key with dots walks nested objects ("request.uri"). Several keys may be
// given per field, separated by commas; the first present wins.
type FieldMap struct {
	Time, Host, IP, Method, Target, Path, Query, Status, Bytes, Referer, UserAgent string
	// Duration is the response time key; DurationUnit its unit: "s", "ms"
	// (the default), "us" or "ns".
	Duration, DurationUnit string
}

// CloudflareFields is the field map of Cloudflare Logpush HTTP requests
// (https://developers.cloudflare.com/logs/reference/log-fields/zone/http_requests/).
var CloudflareFields = FieldMap{
	Time: "EdgeStartTimestamp", Host: "ClientRequestHost", IP: "ClientIP", Method: "ClientRequestMethod",
	Target: "ClientRequestURI", Status: "EdgeResponseStatus", Bytes: "EdgeResponseBytes",
	Referer: "ClientRequestReferer", UserAgent: "ClientRequestUserAgent",
	Duration: "EdgeTimeToFirstByteMs", DurationUnit: "ms",
}

// CloudFrontFields is the field map of CloudFront standard logs delivered
// as JSON (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/standard-logs-reference.html).
var CloudFrontFields = FieldMap{
	Time: "timestamp(ms),timestamp", Host: "cs(Host),x-host-header", IP: "c-ip", Method: "cs-method",
	Path: "cs-uri-stem", Query: "cs-uri-query", Status: "sc-status", Bytes: "sc-bytes",
	Referer: "cs(Referer)", UserAgent: "cs(User-Agent)", Duration: "time-taken", DurationUnit: "s",
}

// GenericFields is the default field map: the usual names of JSON access
// logs (nginx escape=json templates, Caddy, Traefik, ...).
var GenericFields = FieldMap{
	Time: "time,timestamp,@timestamp,ts,time_iso8601,time_local,msec,date", Host: "host,vhost,server_name,http_host,request.host",
	IP: "remote_addr,client_ip,ip,clientip,remote_ip,request.remote_ip", Method: "method,request_method,request.method",
	Target: "request_uri,uri,url,request.uri,path", Query: "query,args,query_string", Status: "status,status_code,response_status",
	Bytes: "body_bytes_sent,bytes_sent,bytes,size,response_size", Referer: "referer,http_referer,referrer,request.headers.Referer",
	UserAgent: "user_agent,http_user_agent,ua,useragent,request.headers.User-Agent", Duration: "request_time,duration,response_time,latency", DurationUnit: "s",
}

type jsonParser struct {
	fm   [11][]string
	dur  []string
	unit time.Duration
}

// NewJSONParser returns a Parser of JSON lines with the given field map.
// A nil map tries Cloudflare's, CloudFront's and the generic names on each
// line.
func NewJSONParser(fm *FieldMap) Parser {
	if fm != nil {
		return newJSON(*fm)
	}
	return &multiJSON{ps: []*jsonParser{newJSON(CloudflareFields), newJSON(CloudFrontFields), newJSON(GenericFields)}}
}

func newJSON(fm FieldMap) *jsonParser {
	p := &jsonParser{}
	for i, s := range []string{fm.Time, fm.Host, fm.IP, fm.Method, fm.Target, fm.Path, fm.Query, fm.Status, fm.Bytes, fm.Referer, fm.UserAgent} {
		p.fm[i] = splitKeys(s)
	}
	p.unit = time.Millisecond
	switch fm.DurationUnit {
	case "s":
		p.unit = time.Second
	case "us":
		p.unit = time.Microsecond
	case "ns":
		p.unit = time.Nanosecond
	}
	p.dur = splitKeys(fm.Duration)
	return p
}

func splitKeys(s string) []string {
	var out []string
	for _, k := range strings.Split(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

type multiJSON struct {
	ps   []*jsonParser
	last int
}

func (m *multiJSON) Parse(line string, e *Entry) (bool, error) {
	obj, ok, err := decodeObject(line)
	if !ok || err != nil {
		return ok, err
	}
	// The preset that parsed the previous line is tried first.
	var first error
	for k := range m.ps {
		i := (m.last + k) % len(m.ps)
		ok, err := m.ps[i].parseObject(obj, e)
		if err == nil {
			m.last = i
			return ok, nil
		}
		if first == nil {
			first = err
		}
	}
	return false, first
}

func decodeObject(line string) (map[string]any, bool, error) {
	line = strings.TrimSpace(line)
	if line == "" {
		return nil, false, nil
	}
	if line[0] != '{' {
		return nil, false, malformed("JSON line is not an object")
	}
	var obj map[string]any
	d := json.NewDecoder(strings.NewReader(line))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil {
		return nil, false, malformed("JSON line does not parse")
	}
	return obj, true, nil
}

func (p *jsonParser) Parse(line string, e *Entry) (bool, error) {
	obj, ok, err := decodeObject(line)
	if !ok || err != nil {
		return ok, err
	}
	return p.parseObject(obj, e)
}

func lookup(obj map[string]any, keys []string) (any, bool) {
	for _, k := range keys {
		if v, ok := obj[k]; ok && v != nil {
			return v, true
		}
		if strings.IndexByte(k, '.') < 0 {
			continue
		}
		var cur any = obj
		found := true
		for _, part := range strings.Split(k, ".") {
			m, ok := cur.(map[string]any)
			if !ok {
				found = false
				break
			}
			if cur, ok = m[part]; !ok {
				found = false
				break
			}
		}
		if found && cur != nil {
			return cur, true
		}
	}
	return nil, false
}

func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

func (p *jsonParser) parseObject(obj map[string]any, e *Entry) (bool, error) {
	*e = Entry{Duration: -1}
	get := func(i int) string {
		v, _ := lookup(obj, p.fm[i])
		return text(v)
	}
	tv := get(0)
	if tv == "" {
		return false, malformed("JSON line has no timestamp field")
	}
	t, ok := parseTime(tv)
	if !ok {
		return false, malformed("JSON timestamp is not ISO 8601 or epoch")
	}
	e.Time = t
	e.Host = get(1)
	if v := get(2); v != "" {
		ip, err := netip.ParseAddr(v)
		if err != nil {
			return false, malformed("client address is not an IP address")
		}
		e.IP = ip.Unmap()
	}
	e.Method = get(3)
	e.Target = get(4)
	if e.Target == "" {
		e.Target = get(5)
		if q := get(6); q != "" && q != "-" {
			e.Target += "?" + q
		}
	}
	if e.Target == "" {
		return false, malformed("JSON line has no request target field")
	}
	if u, ok := strings.CutPrefix(e.Target, "http"); ok && (strings.HasPrefix(u, "://") || strings.HasPrefix(u, "s://")) {
		if pu, err := url.Parse(e.Target); err == nil {
			if e.Host == "" {
				e.Host = pu.Host
			}
			e.Target = pu.RequestURI()
		}
	}
	st, ok := atoi(get(7))
	if !ok || st < 100 || st > 999 {
		return false, malformed("JSON status is not a 3-digit code")
	}
	e.Status = st
	if v := get(8); v != "" && v != "-" {
		b, err := strconv.ParseFloat(v, 64)
		if err != nil || b < 0 {
			return false, malformed("JSON byte count is not a number")
		}
		e.Bytes = int64(b)
	}
	e.Referer = get(9)
	e.UserAgent = get(10)
	if v, ok := lookup(obj, p.dur); ok {
		if f, err := strconv.ParseFloat(text(v), 64); err == nil && f >= 0 {
			e.Duration = time.Duration(f * float64(p.unit))
		}
	}
	return true, nil
}
