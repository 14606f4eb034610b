package logs

import (
	"io"
	"strconv"
	"time"
)

// genLog is an io.Reader of a generated combined-format log: n lines,
// never held whole. Every kind-th line is a bot from the table below; the
// rest are browsers. With distinct, every line asks for a URL of its own.
type genLog struct {
	n, i     int
	distinct bool
	buf      []byte
	start    time.Time
}

var genAgents = []struct{ ip, ua string }{
	{"66.249.66.1", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"},
	{"203.0.113.9", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}, // spoofed
	{"20.15.240.64", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)"},
	{"198.51.100.7", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"},
	{"192.0.2.10", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"},
	{"192.0.2.11", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"},
}

var genPaths = []string{"/", "/blog/", "/blog/post-1", "/blog/post-2", "/products/widget?color=red", "/about", "/private/report.pdf", "/robots.txt"}

func newGenLog(n int, distinct bool) *genLog {
	return &genLog{n: n, distinct: distinct, start: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
}

func (g *genLog) line(i int) string { return string(g.appendLine(nil, i)) }

func (g *genLog) appendLine(b []byte, i int) []byte {
	a := genAgents[i%len(genAgents)]
	status := 200
	if i%97 == 0 {
		status = 404
	}
	t := g.start.Add(time.Duration(i) * time.Second)
	b = append(b, a.ip...)
	b = append(b, " - - ["...)
	b = t.AppendFormat(b, "02/Jan/2006:15:04:05 -0700")
	b = append(b, "] \"GET "...)
	if g.distinct {
		b = append(b, "/item/"...)
		b = strconv.AppendInt(b, int64(i), 10)
	} else {
		b = append(b, genPaths[(i/len(genAgents))%len(genPaths)]...)
	}
	b = append(b, " HTTP/1.1\" "...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(1000+i%5000), 10)
	b = append(b, " \"-\" \""...)
	b = append(b, a.ua...)
	return append(b, "\"\n"...)
}

func (g *genLog) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && g.i < g.n {
		g.buf = g.appendLine(g.buf, g.i)
		g.i++
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.buf)
	g.buf = g.buf[:copy(g.buf, g.buf[n:])]
	return n, nil
}
