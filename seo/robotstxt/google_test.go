package robotstxt

import (
	"strings"
	"testing"
)

// The cases below are the matching cases of Google's robots.txt test suite
// (google/robotstxt robots_test.cc, as ported by jimsmart/grobotstxt), and the
// examples of Google's robots.txt documentation.

type matchCase struct {
	name   string
	robots string
	agent  string
	url    string
	want   bool
}

func runMatchCases(t *testing.T, cases []matchCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Parse([]byte(tc.robots)).Allowed(tc.agent, tc.url); got != tc.want {
				t.Errorf("Allowed(%q, %q) = %v, want %v\nrobots.txt:\n%s", tc.agent, tc.url, got, tc.want, tc.robots)
			}
		})
	}
}

func TestGoogleSystem(t *testing.T) {
	const robots = "user-agent: FooBot\ndisallow: /\n"
	runMatchCases(t, []matchCase{
		{"empty robots allows", "", "FooBot", "", true},
		{"empty agent falls to no group", robots, "", "", true},
		{"empty url is the root", robots, "FooBot", "", false},
		{"all empty", "", "", "", true},
	})
}

func TestGoogleLineSyntax(t *testing.T) {
	const url = "http://foo.bar/x/y"
	runMatchCases(t, []matchCase{
		{"correct", "user-agent: FooBot\ndisallow: /\n", "FooBot", url, false},
		{"unknown fields", "foo: FooBot\nbar: /\n", "FooBot", url, true},
		{"missing colon accepted", "user-agent FooBot\ndisallow /\n", "FooBot", url, false},
	})
}

func TestGoogleGroups(t *testing.T) {
	const robots = "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n"
	runMatchCases(t, []matchCase{
		{"foo x", robots, "FooBot", "http://foo.bar/x/b", true},
		{"foo z merged group", robots, "FooBot", "http://foo.bar/z/d", true},
		{"foo y", robots, "FooBot", "http://foo.bar/y/c", false},
		{"bar y", robots, "BarBot", "http://foo.bar/y/c", true},
		{"bar w after blank lines", robots, "BarBot", "http://foo.bar/w/a", true},
		{"bar z", robots, "BarBot", "http://foo.bar/z/d", false},
		{"baz shares group with foo", robots, "BazBot", "http://foo.bar/z/d", true},
		{"rule outside group ignored foo", robots, "FooBot", "http://foo.bar/foo/bar/", false},
		{"rule outside group ignored bar", robots, "BarBot", "http://foo.bar/foo/bar/", false},
		{"rule outside group ignored baz", robots, "BazBot", "http://foo.bar/foo/bar/", false},
	})
}

func TestGoogleCaseInsensitivity(t *testing.T) {
	var cases []matchCase
	for _, robots := range []string{
		"USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n",
		"user-agent: FooBot\nallow: /x/\ndisallow: /\n",
		"uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n",
	} {
		name := strings.SplitN(robots, ":", 2)[0]
		cases = append(cases,
			matchCase{name + " allowed", robots, "FooBot", "http://foo.bar/x/y", true},
			matchCase{name + " disallowed", robots, "FooBot", "http://foo.bar/a/b", false})
	}
	for _, robots := range []string{
		"User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n",
		"User-Agent: foo bar\nAllow: /x/\nDisallow: /\n",
		"User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n",
	} {
		for _, agent := range []string{"Foo", "foo"} {
			cases = append(cases,
				matchCase{robots[12:19] + " " + agent + " allowed", robots, agent, "http://foo.bar/x/y", true},
				matchCase{robots[12:19] + " " + agent + " disallowed", robots, agent, "http://foo.bar/a/b", false})
		}
	}
	runMatchCases(t, cases)
}

func TestGoogleAgentUpToFirstSpace(t *testing.T) {
	const robots = "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n"
	runMatchCases(t, []matchCase{
		{"token", robots, "Foo", "http://foo.bar/x/y", true},
		{"agent with space is not a token", robots, "Foo Bar", "http://foo.bar/x/y", false},
	})
}

func TestGoogleGlobalGroups(t *testing.T) {
	const url = "http://foo.bar/x/y"
	global := "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n"
	specific := "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n"
	runMatchCases(t, []matchCase{
		{"empty", "", "FooBot", url, true},
		{"specific beats global", global, "FooBot", url, false},
		{"global for others", global, "BarBot", url, true},
		{"no global, no match", specific, "QuxBot", url, true},
	})
}

func TestGoogleValueCaseSensitive(t *testing.T) {
	const url = "http://foo.bar/x/y"
	runMatchCases(t, []matchCase{
		{"lowercase rule", "user-agent: FooBot\ndisallow: /x/\n", "FooBot", url, false},
		{"uppercase rule", "user-agent: FooBot\ndisallow: /X/\n", "FooBot", url, true},
	})
}

func TestGoogleLongestMatch(t *testing.T) {
	const url = "http://foo.bar/x/page.html"
	runMatchCases(t, []matchCase{
		{"longer disallow", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", "FooBot", url, false},
		{"longer allow", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", url, true},
		{"longer allow, dir", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/", false},
		{"empty rules", "user-agent: FooBot\ndisallow: \nallow: \n", "FooBot", url, true},
		{"tie on root", "user-agent: FooBot\ndisallow: /\nallow: /\n", "FooBot", url, true},
		{"/x vs /x/ a", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x", false},
		{"/x vs /x/ b", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x/", true},
		{"tie on page", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", "FooBot", url, true},
		{"wildcard longer", "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page.html", false},
		{"wildcard no match", "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page", true},
		{"allow longer than wildcard", "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", url, true},
		{"wildcard elsewhere", "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", "http://foo.bar/x/y.html", false},
		{"specific group not merged with global x", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "FooBot", "http://foo.bar/x/page", true},
		{"specific group not merged with global y", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "FooBot", "http://foo.bar/y/page", false},
	})
}

func TestGoogleEncoding(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"reserved chars", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n", "FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true},
		{"utf-8 rule, encoded url", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true},
		{"utf-8 rule, raw url", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", "FooBot", "http://foo.bar/foo/bar/ツ", true},
		{"encoded rule, encoded url", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true},
		{"encoded rule, raw url", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", "FooBot", "http://foo.bar/foo/bar/ツ", true},
		{"lowercase hex", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%e3%83%84\n", "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true},
		// RFC 9309 section 2.2.2: "/foo/bar/%62%61%7A" matches "/foo/bar/baz".
		// (Google's own matcher compares these literally; we normalise both sides.)
		{"encoded unreserved, plain url", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "FooBot", "http://foo.bar/foo/bar/baz", true},
		{"encoded unreserved, encoded url", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "FooBot", "http://foo.bar/foo/bar/%62%61%7A", true},
		{"tilde", "User-agent: FooBot\nDisallow: /%7Euser\n", "FooBot", "/~user/page", false},
		{"tilde reversed", "User-agent: FooBot\nDisallow: /~user\n", "FooBot", "/%7euser/page", false},
	})
}

func TestGoogleSpecialCharacters(t *testing.T) {
	a := "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n"
	b := "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n"
	c := "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n"
	runMatchCases(t, []matchCase{
		{"a1", a, "FooBot", "http://foo.bar/foo/bar/quz", false},
		{"a2", a, "FooBot", "http://foo.bar/foo/quz", true},
		{"a3", a, "FooBot", "http://foo.bar/foo//quz", true},
		{"a4", a, "FooBot", "http://foo.bar/foo/bax/quz", true},
		{"b1", b, "FooBot", "http://foo.bar/foo/bar", false},
		{"b2", b, "FooBot", "http://foo.bar/foo/bar/qux", true},
		{"b3", b, "FooBot", "http://foo.bar/foo/bar/", true},
		{"b4", b, "FooBot", "http://foo.bar/foo/bar/baz", true},
		{"c1", c, "FooBot", "http://foo.bar/foo/bar", true},
		{"c2", c, "FooBot", "http://foo.bar/foo/quz", false},
	})
}

func TestGoogleIndexHTMLIsDirectory(t *testing.T) {
	const robots = "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n"
	runMatchCases(t, []matchCase{
		{"directory", robots, "foobot", "http://foo.com/allowed-slash/", true},
		{"index.htm", robots, "foobot", "http://foo.com/allowed-slash/index.htm", false},
		{"index.html", robots, "foobot", "http://foo.com/allowed-slash/index.html", true},
		{"other", robots, "foobot", "http://foo.com/anyother-url", false},
	})
}

func TestGoogleLineTooLong(t *testing.T) {
	const maxLine = 2083 * 8
	long := "/x/" + strings.Repeat("a", maxLine-len("/x/")-len("disallow: ")+1-3)
	robots := "user-agent: FooBot\ndisallow: " + long + "/qux\n"
	longA := "/x/" + strings.Repeat("a", maxLine-len("/x/")-len("allow: ")+1-3)
	longB := "/x/" + strings.Repeat("b", maxLine-len("/x/")-len("allow: ")+1-3)
	robots2 := "user-agent: FooBot\ndisallow: /\nallow: " + longA + "/qux\nallow: " + longB + "/qux\n"
	runMatchCases(t, []matchCase{
		{"no match", robots, "FooBot", "http://foo.bar/fux", true},
		{"cut disallow matches", robots, "FooBot", "http://foo.bar" + long + "/fux", false},
		{"root", robots2, "FooBot", "http://foo.bar/", false},
		{"exact allow", robots2, "FooBot", "http://foo.bar" + longA + "/qux", true},
		{"cut allow matches", robots2, "FooBot", "http://foo.bar" + longB + "/fux", true},
	})
}

func TestGoogleDocumentation(t *testing.T) {
	fish := "user-agent: FooBot\ndisallow: /\nallow: /fish\n"
	fishStar := "user-agent: FooBot\ndisallow: /\nallow: /fish*\n"
	fishSlash := "user-agent: FooBot\ndisallow: /\nallow: /fish/\n"
	php := "user-agent: FooBot\ndisallow: /\nallow: /*.php\n"
	phpEnd := "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n"
	fishPHP := "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n"
	var cases []matchCase
	add := func(robots string, want bool, paths ...string) {
		for _, p := range paths {
			cases = append(cases, matchCase{strings.TrimPrefix(robots[strings.LastIndex(robots[:len(robots)-1], "\n")+1:len(robots)-1], "allow: ") + " " + p, robots, "FooBot", "http://foo.bar" + p, want})
		}
	}
	for _, r := range []string{fish, fishStar} {
		add(r, false, "/bar", "/Fish.asp", "/catfish", "/?id=fish")
		add(r, true, "/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.html?id=anything")
	}
	add(fishSlash, false, "/bar", "/fish", "/fish.html", "/Fish/Salmon.html")
	add(fishSlash, true, "/fish/", "/fish/salmon", "/fish/?salmon", "/fish/salmon.html", "/fish/?id=anything")
	add(php, false, "/bar", "/php/", "/index?php", "/windows.PHP")
	add(php, true, "/filename.php", "/folder/filename.php", "/folder/filename.php?parameters", "//folder/any.php.file.html", "/filename.php/", "/index?f=filename.php/")
	add(phpEnd, false, "/bar", "/filename.php?parameters", "/filename.php/", "/filename.php5", "/php/", "/filename?php", "/aaaphpaaa", "//windows.PHP")
	add(phpEnd, true, "/filename.php", "/folder/filename.php")
	add(fishPHP, false, "/bar", "/Fish.PHP")
	add(fishPHP, true, "/fish.php", "/fishheads/catfish.php?parameters")
	cases = append(cases,
		matchCase{"precedence /p", "user-agent: FooBot\nallow: /p\ndisallow: /\n", "FooBot", "http://example.com/page", true},
		matchCase{"precedence /folder tie", "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", "FooBot", "http://example.com/folder/page", true},
		matchCase{"precedence /*.htm", "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", "FooBot", "http://example.com/page.htm", false},
		matchCase{"precedence /$ root", "user-agent: FooBot\nallow: /$\ndisallow: /\n", "FooBot", "http://example.com/", true},
		matchCase{"precedence /$ page", "user-agent: FooBot\nallow: /$\ndisallow: /\n", "FooBot", "http://example.com/page.html", false},
		// A rule path must start with "/": "page" matches nothing.
		matchCase{"page without slash", "user-agent: FooBot\ndisallow: page\n", "FooBot", "/page", true},
		matchCase{"page with slash", "user-agent: FooBot\ndisallow: /page\n", "FooBot", "/page", false},
	)
	runMatchCases(t, cases)
}

// TestGoogleWhitespace follows Google's parser (google/robotstxt robots.cc,
// GetKeyAndValueFrom and StripWhitespaceSlowly): lines, keys and values are
// trimmed of ASCII whitespace only (absl::ascii_isspace), so a U+00A0
// NO-BREAK SPACE or another Unicode space stays in the value and the rule
// no longer starts with "/". The line-ending cases are robots_test.cc's
// ID_LinesNumbersAreCountedCorrectly (LF, CRLF, CR, mixed, no final newline)
// turned into match cases.
func TestGoogleWhitespace(t *testing.T) {
	const url = "http://foo.bar/private/x"
	runMatchCases(t, []matchCase{
		{"ascii space before value", "user-agent: FooBot\ndisallow: /private\n", "FooBot", url, false},
		{"tab around value", "user-agent:\tFooBot\ndisallow:\t/private\t\n", "FooBot", url, false},
		{"vertical tab and form feed are ascii space", "user-agent: FooBot\ndisallow:\v\f/private\n", "FooBot", url, false},
		{"no-break space before value blocks nothing", "user-agent: FooBot\ndisallow:\u00a0/private\n", "FooBot", url, true},
		{"no-break space after value is part of it", "user-agent: FooBot\ndisallow: /private\u00a0\n", "FooBot", url, true},
		{"no-break space after value matches the encoded path", "user-agent: FooBot\ndisallow: /private\u00a0\n", "FooBot", "http://foo.bar/private%C2%A0", false},
		{"ideographic space before value blocks nothing", "user-agent: FooBot\ndisallow:\u3000/private\n", "FooBot", url, true},
		{"em space before value blocks nothing", "user-agent: FooBot\ndisallow:\u2003/private\n", "FooBot", url, true},
		{"no-break space in agent keeps the group foreign", "user-agent:\u00a0FooBot\ndisallow: /private\n", "FooBot", url, true},
		{"no-break space before key is no directive", "\u00a0user-agent: FooBot\n\u00a0disallow: /private\n", "FooBot", url, true},
		{"missing colon with no-break space is not a separator", "user-agent: FooBot\ndisallow\u00a0/private\n", "FooBot", url, true},
		{"missing colon with tab is a separator", "user-agent: FooBot\ndisallow\t/private\n", "FooBot", url, false},
		{"lines end with LF", "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n", "bar", "http://foo.bar/x", false},
		{"lines end with CRLF", "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n", "bar", "http://foo.bar/x", false},
		{"lines end with CR", "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r", "bar", "http://foo.bar/x", false},
		{"no final newline", "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /", "bar", "http://foo.bar/x", false},
		{"mixed line ends", "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\n\rDisallow: /", "bar", "http://foo.bar/x", false},
	})
}
