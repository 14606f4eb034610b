package plans_test

import (
	"math"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/store"
)

func TestNew(t *testing.T) {
	free, pro := plans.Defaults[store.Free], plans.Defaults[store.Pro]
	// with returns l changed by f: the limits not named keep their defaults.
	with := func(l plans.Limits, f func(*plans.Limits)) plans.Limits { f(&l); return l }
	tests := []struct {
		name    string
		plans   map[store.Plan]plans.Limits
		daily   map[store.Plan]int
		maxPgs  int
		want    plans.Table // checked plans only
		wantErr bool
	}{
		{name: "defaults", want: plans.Table{store.Free: free, store.Pro: pro}},
		{name: "zero fields keep defaults",
			plans: map[store.Plan]plans.Limits{store.Free: {ConcurrentSiteJobs: 2}},
			want:  plans.Table{store.Free: with(free, func(l *plans.Limits) { l.ConcurrentSiteJobs = 2 })}},
		{name: "render pages",
			plans: map[store.Plan]plans.Limits{store.Pro: {RenderPages: 20}},
			want:  plans.Table{store.Pro: with(pro, func(l *plans.Limits) { l.RenderPages = 20 })}},
		{name: "daily shorthand wins",
			plans: map[store.Plan]plans.Limits{store.Pro: {DailyRequests: 5}}, daily: map[store.Plan]int{store.Pro: 7},
			want: plans.Table{store.Pro: with(pro, func(l *plans.Limits) { l.DailyRequests = 7 })}},
		{name: "unknown plan starts from free",
			daily: map[store.Plan]int{"team": 300},
			want:  plans.Table{"team": with(free, func(l *plans.Limits) { l.DailyRequests = 300 })}},
		{name: "server cap", maxPgs: 200,
			want: plans.Table{store.Free: with(free, func(l *plans.Limits) { l.MaxSitePages = 200 })}},
		{name: "projects, capped at the store's most",
			plans: map[store.Plan]plans.Limits{store.Free: {Projects: 10}, store.Pro: {Projects: store.MaxProjects + 1}},
			want: plans.Table{store.Free: with(free, func(l *plans.Limits) { l.Projects = 10 }),
				store.Pro: with(pro, func(l *plans.Limits) { l.Projects = store.MaxProjects })}},
		{name: "negative plan", plans: map[store.Plan]plans.Limits{store.Free: {MaxSitePages: -1}}, wantErr: true},
		{name: "negative render pages", plans: map[store.Plan]plans.Limits{store.Free: {RenderPages: -1}}, wantErr: true},
		{name: "negative projects", plans: map[store.Plan]plans.Limits{store.Free: {Projects: -1}}, wantErr: true},
		{name: "alert rules",
			plans: map[store.Plan]plans.Limits{store.Free: {AlertRules: 2}},
			want:  plans.Table{store.Free: with(free, func(l *plans.Limits) { l.AlertRules = 2 })}},
		{name: "negative alert rules", plans: map[store.Plan]plans.Limits{store.Free: {AlertRules: -1}}, wantErr: true},
		{name: "history",
			plans: map[store.Plan]plans.Limits{store.Free: {HistoryAnalyses: 3, HistoryDays: 7}},
			want:  plans.Table{store.Free: with(free, func(l *plans.Limits) { l.HistoryAnalyses, l.HistoryDays = 3, 7 })}},
		{name: "negative history", plans: map[store.Plan]plans.Limits{store.Free: {HistoryDays: -1}}, wantErr: true},
		{name: "negative daily", daily: map[store.Plan]int{store.Free: -1}, wantErr: true},
		{name: "schedules",
			plans: map[store.Plan]plans.Limits{store.Free: {Schedules: 5, MinScheduleInterval: time.Hour}},
			want:  plans.Table{store.Free: with(free, func(l *plans.Limits) { l.Schedules, l.MinScheduleInterval = 5, time.Hour })}},
		{name: "negative schedules", plans: map[store.Plan]plans.Limits{store.Free: {Schedules: -1}}, wantErr: true},
		{name: "request rate and burst",
			plans: map[store.Plan]plans.Limits{store.Pro: {RequestRate: 500, RequestBurst: 2000}},
			want: plans.Table{store.Pro: with(pro, func(l *plans.Limits) { l.RequestRate, l.RequestBurst = 500, 2000 }),
				store.Free: free}},
		{name: "negative request rate", plans: map[store.Plan]plans.Limits{store.Free: {RequestRate: -1}}, wantErr: true},
		{name: "infinite request rate", plans: map[store.Plan]plans.Limits{store.Free: {RequestRate: math.Inf(1)}}, wantErr: true},
		{name: "NaN request rate", plans: map[store.Plan]plans.Limits{store.Free: {RequestRate: math.NaN()}}, wantErr: true},
		{name: "negative request burst", plans: map[store.Plan]plans.Limits{store.Free: {RequestBurst: -1}}, wantErr: true},
		{name: "tracked keywords, capped at the most any account tracks",
			plans: map[store.Plan]plans.Limits{store.Free: {TrackedKeywords: 25}, store.Pro: {TrackedKeywords: plans.MaxTrackedKeywords + 1}},
			want: plans.Table{store.Free: with(free, func(l *plans.Limits) { l.TrackedKeywords = 25 }),
				store.Pro: with(pro, func(l *plans.Limits) { l.TrackedKeywords = plans.MaxTrackedKeywords })}},
		{name: "negative tracked keywords", plans: map[store.Plan]plans.Limits{store.Free: {TrackedKeywords: -1}}, wantErr: true},
		{name: "negative schedule interval", plans: map[store.Plan]plans.Limits{store.Free: {MinScheduleInterval: -time.Second}}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := plans.New(tt.plans, tt.daily, tt.maxPgs)
			if (err != nil) != tt.wantErr {
				t.Fatalf("New: %v, want error %v", err, tt.wantErr)
			}
			for p, w := range tt.want {
				if got[p] != w {
					t.Errorf("%s: %+v, want %+v", p, got[p], w)
				}
			}
		})
	}
}

func TestFor(t *testing.T) {
	tab, err := plans.New(nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		acct  store.Account
		daily int
		pages int
	}{
		{store.Account{Plan: store.Free}, plans.DefaultFreeDaily, 500},
		{store.Account{Plan: store.Pro}, plans.DefaultProDaily, 10_000},
		{store.Account{Plan: store.Enterprise, DailyLimit: 50_000}, 50_000, 10_000},
		{store.Account{Plan: "retired"}, plans.DefaultFreeDaily, 500},
	}
	for _, tt := range tests {
		got := tab.For(&tt.acct)
		if got.DailyRequests != tt.daily || got.MaxSitePages != tt.pages {
			t.Errorf("For(%+v) = %+v, want daily %d, pages %d", tt.acct, got, tt.daily, tt.pages)
		}
	}
}

func TestCache(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	c := plans.NewCache(2, time.Minute)
	pro := plans.Defaults[store.Pro]
	c.Put("a", pro, t0)
	for _, tc := range []struct {
		name string
		id   string
		at   time.Time
		ok   bool
	}{
		{"fresh", "a", t0.Add(time.Minute), true},
		{"expired", "a", t0.Add(time.Minute + time.Nanosecond), false},
		{"clock went back", "a", t0.Add(-time.Second), false},
		{"never put", "b", t0, false},
	} {
		l, ok := c.Get(tc.id, tc.at)
		if ok != tc.ok || (ok && l != pro) || (!ok && l != (plans.Limits{})) {
			t.Errorf("%s: Get = %+v, %v; want ok %v", tc.name, l, ok, tc.ok)
		}
	}
	// Bounded: a third account pushes out the least recently used.
	c.Put("b", pro, t0)
	c.Get("a", t0)
	c.Put("c", pro, t0)
	if _, ok := c.Get("b", t0); ok {
		t.Error("the cache holds more accounts than its bound")
	}
	if _, ok := c.Get("a", t0); !ok {
		t.Error("the recently used account was pushed out")
	}
}
