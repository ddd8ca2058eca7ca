package bot

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/analyticsbot/analyticsbot/demo"
)

func TestZZProbe(t *testing.T) {
	bt := benchBot(t, benchDemoDB(t))
	for _, q := range demo.Questions() {
		var tot, dbt time.Duration
		for i := 0; i < 20; i++ {
			st := time.Now()
			s, res, err := bt.Ask(context.Background(), Message{Text: q})
			if err != nil { t.Fatal(err) }
			tot += time.Since(st)
			dbt += s.DBTime
			if i == 19 {
				for _, x := range res.Steps { fmt.Printf("   %s %v\n", x.Node, x.Duration) }
			}
		}
		fmt.Printf("%-55s total %v db %v\n", q, tot/20, dbt/20)
	}
}
