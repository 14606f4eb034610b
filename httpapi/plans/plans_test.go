package plans_test

import (
	"testing"

	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/store"
)

func TestNew(t *testing.T) {
	free, pro := plans.Defaults[store.Free], plans.Defaults[store.Pro]
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
			want:  plans.Table{store.Free: {DailyRequests: free.DailyRequests, MaxSitePages: free.MaxSitePages, ConcurrentSiteJobs: 2, RenderPages: free.RenderPages, Projects: free.Projects}}},
		{name: "render pages",
			plans: map[store.Plan]plans.Limits{store.Pro: {RenderPages: 20, Projects: pro.Projects}},
			want:  plans.Table{store.Pro: {DailyRequests: pro.DailyRequests, MaxSitePages: pro.MaxSitePages, ConcurrentSiteJobs: pro.ConcurrentSiteJobs, RenderPages: 20, Projects: pro.Projects}}},
		{name: "daily shorthand wins",
			plans: map[store.Plan]plans.Limits{store.Pro: {DailyRequests: 5}}, daily: map[store.Plan]int{store.Pro: 7},
			want: plans.Table{store.Pro: {DailyRequests: 7, MaxSitePages: pro.MaxSitePages, ConcurrentSiteJobs: pro.ConcurrentSiteJobs, RenderPages: pro.RenderPages, Projects: pro.Projects}}},
		{name: "unknown plan starts from free",
			daily: map[store.Plan]int{"team": 300},
			want:  plans.Table{"team": {DailyRequests: 300, MaxSitePages: free.MaxSitePages, ConcurrentSiteJobs: free.ConcurrentSiteJobs, RenderPages: free.RenderPages, Projects: free.Projects}}},
		{name: "server cap", maxPgs: 200,
			want: plans.Table{store.Free: {DailyRequests: free.DailyRequests, MaxSitePages: 200, ConcurrentSiteJobs: free.ConcurrentSiteJobs, RenderPages: free.RenderPages, Projects: free.Projects}}},
		{name: "projects, capped at the store's most",
			plans: map[store.Plan]plans.Limits{store.Free: {Projects: 10}, store.Pro: {Projects: store.MaxProjects + 1}},
			want: plans.Table{store.Free: {DailyRequests: free.DailyRequests, MaxSitePages: free.MaxSitePages, ConcurrentSiteJobs: free.ConcurrentSiteJobs, RenderPages: free.RenderPages, Projects: 10},
				store.Pro: {DailyRequests: pro.DailyRequests, MaxSitePages: pro.MaxSitePages, ConcurrentSiteJobs: pro.ConcurrentSiteJobs, RenderPages: pro.RenderPages, Projects: store.MaxProjects}}},
		{name: "negative plan", plans: map[store.Plan]plans.Limits{store.Free: {MaxSitePages: -1}}, wantErr: true},
		{name: "negative render pages", plans: map[store.Plan]plans.Limits{store.Free: {RenderPages: -1}}, wantErr: true},
		{name: "negative projects", plans: map[store.Plan]plans.Limits{store.Free: {Projects: -1}}, wantErr: true},
		{name: "negative daily", daily: map[store.Plan]int{store.Free: -1}, wantErr: true},
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
