package optimizer

import (
	"strings"
	"testing"
)

// TestFindingTriggers gives every finding ID a request that triggers it and
// one that does not.
func TestFindingTriggers(t *testing.T) {
	t.Parallel()
	kp := []string{"coffee beans"}
	good := gen(400, 8, true) // ~400 words, keyphrase every 8th sentence
	goodIntro := kpSentence + " " + good
	md := func(body string) string { return body }
	subheads := func(with, without int) string {
		var b strings.Builder
		for i := 0; i < with+without; i++ {
			if i < with {
				b.WriteString("## Coffee beans, part " + string(rune('A'+i)) + "\n\n")
			} else {
				b.WriteString("## Part " + string(rune('A'+i)) + " of the story\n\n")
			}
			b.WriteString(gen(60, 3, false))
		}
		return b.String()
	}
	images := func(n, with int) string {
		var b strings.Builder
		b.WriteString(goodIntro)
		for i := 0; i < n; i++ {
			if i < with {
				b.WriteString("![Roasted coffee beans in a bowl](img.jpg)\n\n")
			} else {
				b.WriteString("![A cup on a table](img.jpg)\n\n")
			}
		}
		return b.String()
	}
	cases := []struct {
		id      string
		trigger Request
		clean   Request
	}{
		{IDContentEmpty, Request{Content: "Hi.", Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDContentTooShort, Request{Content: gen(120, 4, false), Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDLanguageMismatch, Request{Content: benchText(t, "de", 300), Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDLanguageUnsupported, Request{Content: good, Keywords: kp, Locale: "pl-PL"}, Request{Content: good, Keywords: kp}},
		{IDTitleTooLong, Request{Content: good, Keywords: kp, Title: "Coffee beans: " + strings.Repeat("a very long title ", 5)}, Request{Content: good, Keywords: kp, Title: "Coffee beans: a short guide"}},
		{IDDescriptionTooShort, Request{Content: good, Keywords: kp, Description: "Coffee beans, briefly."}, Request{Content: good, Keywords: kp, Description: "Coffee beans explained: " + strings.Repeat("x ", 55)}},
		{IDDescriptionTooLong, Request{Content: good, Keywords: kp, Description: "Coffee beans explained: " + strings.Repeat("x ", 90)}, Request{Content: good, Keywords: kp, Description: "Coffee beans explained: " + strings.Repeat("x ", 55)}},
		{IDKeyphraseMissing, Request{Content: good}, Request{Content: good, Keywords: kp}},
		{IDKeyphraseFunctionWords, Request{Content: good, Keywords: []string{"the of and"}}, Request{Content: good, Keywords: kp}},
		{IDKeyphraseTooLong, Request{Content: good, Keywords: []string{"fresh organic coffee beans from small local farms"}}, Request{Content: good, Keywords: kp}},
		{IDKeyphraseNotFound, Request{Content: good, Keywords: []string{"quantum physics"}}, Request{Content: good, Keywords: kp}},
		{IDDensityLow, Request{Content: kpSentence + " " + gen(500, 0, true), Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDDensityHigh, Request{Content: gen(400, 4, true), Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDStuffing, Request{Content: gen(400, 2, true), Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDRepeatedInSentence, Request{Content: "Coffee beans, coffee beans and more coffee beans are all we sell. " + good, Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDNotInTitle, Request{Content: good, Keywords: kp, Title: "A guide to tea"}, Request{Content: good, Keywords: kp, Title: "Coffee beans: a guide"}},
		{IDTitleNotAtStart, Request{Content: good, Keywords: kp, Title: "Our guide to coffee beans"}, Request{Content: good, Keywords: kp, Title: "Coffee beans: a guide"}},
		{IDNotInIntroduction, Request{Content: good, Keywords: kp}, Request{Content: goodIntro, Keywords: kp}},
		{IDIntroductionSplit, Request{Content: "We love coffee. The beans come from Peru.\n\n" + good, Keywords: kp}, Request{Content: goodIntro, Keywords: kp}},
		{IDNotInDescription, Request{Content: good, Keywords: kp, Description: "A guide to tea."}, Request{Content: good, Keywords: kp, Description: "A guide to coffee beans."}},
		{IDDescriptionOverused, Request{Content: good, Keywords: kp, Description: "Coffee beans. Coffee beans. Coffee beans."}, Request{Content: good, Keywords: kp, Description: "A guide to coffee beans."}},
		{IDNotInSubheadings, Request{Content: md(subheads(0, 4)), Keywords: kp}, Request{Content: md(subheads(2, 2)), Keywords: kp}},
		{IDSubheadingsOverused, Request{Content: md(subheads(4, 0)), Keywords: kp}, Request{Content: md(subheads(2, 2)), Keywords: kp}},
		{IDNotInAlt, Request{Content: images(1, 0), Keywords: kp, Format: "markdown"}, Request{Content: images(1, 1), Keywords: kp, Format: "markdown"}},
		{IDAltOverused, Request{Content: images(5, 5), Keywords: kp, Format: "markdown"}, Request{Content: images(5, 2), Keywords: kp, Format: "markdown"}},
		{IDNotInSlug, Request{Content: good, Keywords: kp, Slug: "/blog/tea"}, Request{Content: good, Keywords: kp, Slug: "https://example.com/blog/coffee-beans/"}},
		{IDPoorDistribution, Request{Content: kpSentence + "\n\n" + gen(400, 0, true), Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDCompetingLinks, Request{Content: good + "\n\nRead about [coffee beans](https://example.com/beans).", Keywords: kp, Format: "markdown"}, Request{Content: good + "\n\nRead about [our shop](https://example.com/shop).", Keywords: kp, Format: "markdown"}},
		{IDCompeting, Request{Content: good, Keywords: []string{"coffee beans", "bean coffee"}}, Request{Content: good, Keywords: []string{"coffee beans", "green tea"}}},
		{IDSentenceTooLong, Request{Content: longText() + "\n\n" + longText() + "\n\n" + gen(150, 8, true), Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDParagraphTooLong, Request{Content: strings.ReplaceAll(gen(400, 8, false), "\n\n", " "), Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDSectionTooLong, Request{Content: "## Intro\n\n" + gen(400, 8, false), Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDNoSubheadings, Request{Content: gen(400, 8, false), Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDPassiveVoice, Request{Content: strings.Repeat(strings.Join(passives, " ")+"\n\n", 3) + good, Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDFewTransitions, Request{Content: strings.Join(append(append([]string{}, plain...), plain...), " ") + "\n\n" + strings.Join(plain, " "), Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDConsecutiveOpenings, Request{Content: "Coffee is good. Coffee is hot. Coffee is dark.\n\n" + good, Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDComplexWords, Request{Content: strings.Repeat("Administrative organisations internationally generalise complicated regulations. ", 12), Keywords: kp}, Request{Content: good, Keywords: kp}},
		{IDHardToRead, Request{Content: strings.Repeat("Administrative organisations internationally generalise complicated regulations concerning agricultural responsibilities. ", 12), Keywords: kp}, Request{Content: good, Keywords: kp}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.id] = true
		t.Run(c.id, func(t *testing.T) {
			r := optimize(t, c.trigger)
			f, ok := findingIDs(r)[c.id]
			if !ok {
				t.Fatalf("trigger: %s not reported; got %v", c.id, ids(r))
			}
			if f.Severity != severityOf[c.id] || f.Message == "" {
				t.Errorf("trigger: finding %+v has wrong severity or no message", f)
			}
			for _, s := range f.Spans {
				if s.Start < 0 || s.End > len(c.trigger.Content) || s.Start > s.End {
					t.Errorf("span %+v outside the content (%d bytes)", s, len(c.trigger.Content))
				}
			}
			if r2 := optimize(t, c.clean); findingIDs(r2)[c.id].ID != "" {
				t.Errorf("clean: %s reported: %s", c.id, findingIDs(r2)[c.id].Message)
			}
		})
	}
	for _, c := range Catalog() {
		if !covered[c.ID] {
			t.Errorf("catalogue ID %s has no trigger case", c.ID)
		}
	}
}

func ids(r *Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.ID)
	}
	return out
}

// TestSpansPointAtText checks that spans cover the text they name.
func TestSpansPointAtText(t *testing.T) {
	t.Parallel()
	content := "# Title\n\nCoffee is good. Coffee is hot. Coffee is dark.\n\n" + gen(200, 4, false)
	r := optimize(t, Request{Content: content, Keywords: []string{"coffee beans"}})
	f := findingIDs(r)[IDConsecutiveOpenings]
	if len(f.Spans) != 1 {
		t.Fatalf("spans %+v", f.Spans)
	}
	got := content[f.Spans[0].Start:f.Spans[0].End]
	if got != "Coffee is good. Coffee is hot. Coffee is dark." {
		t.Errorf("span text %q", got)
	}
	if f.Evidence.Offset != f.Spans[0].Start {
		t.Errorf("evidence offset %d, span start %d", f.Evidence.Offset, f.Spans[0].Start)
	}
	for _, s := range r.Keyphrases[0].Spans {
		w := strings.ToLower(content[s.Start:s.End])
		if !strings.HasPrefix(w, "coffee") && !strings.HasPrefix(w, "bean") {
			t.Errorf("keyphrase span %q", w)
		}
	}
	if len(r.Keyphrases[0].Spans) == 0 {
		t.Error("no keyphrase spans")
	}
}

// longText joins the plain sentences three by three into sentences of
// about 30 words.
func longText() string {
	var out []string
	for i := 0; i+2 < len(plain)*2; i += 3 {
		a := strings.TrimSuffix(plain[i%len(plain)], ".")
		b := strings.TrimSuffix(plain[(i+1)%len(plain)], ".")
		c := plain[(i+2)%len(plain)]
		out = append(out, a+", and "+strings.ToLower(b[:1])+b[1:]+", and "+strings.ToLower(c[:1])+c[1:])
	}
	return strings.Join(out, " ")
}

// TestHTMLSpans checks offsets in HTML with entities and inline markup.
func TestHTMLSpans(t *testing.T) {
	t.Parallel()
	content := "<h1>Coffee</h1><p>The beans were roasted by <b>local</b> farmers &amp; friends. Coffee beans are great.</p>"
	r := optimize(t, Request{Content: content, Keywords: []string{"coffee beans"}})
	var got []string
	for _, s := range r.Keyphrases[0].Spans {
		got = append(got, content[s.Start:s.End])
	}
	if strings.Join(got, ",") != "Coffee,beans" {
		t.Errorf("keyphrase spans %q", got)
	}
	f := findingIDs(r)[IDPassiveVoice]
	if len(f.Spans) != 1 || content[f.Spans[0].Start:f.Spans[0].End] != "The beans were roasted by <b>local</b> farmers &amp; friends." {
		t.Errorf("passive spans %+v", f.Spans)
	}
}
