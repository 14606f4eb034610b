package monitor_test

import (
	"fmt"
	"time"

	"github.com/seokit/seokit/monitor"
)

func ExampleParseSchedule() {
	s, err := monitor.ParseSchedule("daily@02:30", "America/New_York")
	if err != nil {
		fmt.Println(err)
		return
	}
	// Clocks skip 02:00 to 03:00 on 8 March 2026: that day's run is at 03:00.
	at := time.Date(2026, 3, 7, 12, 0, 0, 0, time.UTC)
	for range 3 {
		at = s.Next(at)
		fmt.Println(at.Format("Mon 2006-01-02 15:04 MST"))
	}
	fmt.Println(s.MinInterval() >= 24*time.Hour) // allowed by a daily-at-most plan
	// Output:
	// Sun 2026-03-08 03:00 EDT
	// Mon 2026-03-09 02:30 EDT
	// Tue 2026-03-10 02:30 EDT
	// true
}

func ExampleParseSchedule_invalid() {
	_, err := monitor.ParseSchedule("daily@25:00", "Europe/Paris")
	fmt.Println(err)
	// Output:
	// seo: invalid spec: "25:00" is not a time of day HH:MM (00:00 to 23:59) (got "daily@25:00")
}
