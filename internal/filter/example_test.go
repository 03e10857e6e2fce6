package filter_test

import (
	"fmt"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

func ExampleParse() {
	e, err := filter.Parse("eq(status,complete):in(currency,EUR,USD):ge(created_at,2026-01-01T00:00:00.000Z)")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range e {
		fmt.Println(t.Op, t.Attribute, t.Values)
	}
	// Output:
	// eq status [complete]
	// in currency [EUR USD]
	// ge created_at [2026-01-01T00:00:00.000Z]
}

func ExampleParse_error() {
	_, err := filter.Parse("eq(status, complete)")
	fmt.Println(err)
	// Output:
	// at character 11 near "eq(status, complete)": unquoted value " complete" has leading space; remove the space, or quote the value if the space is intended: " complete"
}

func ExampleAnd() {
	// A client adding a keyset bound to a user's filter.
	user, _ := filter.Parse("like(email,*@example.com)")
	page := filter.And(user, filter.Expr{filter.NewTerm(filter.Gt, "id", "ord_123")})
	fmt.Println(page)
	// Output:
	// like(email,"*@example.com"):gt(id,ord_123)
}

func ExampleQuoteValue() {
	fmt.Println(filter.QuoteValue("complete"))
	fmt.Println(filter.QuoteValue(`Müller, "Bob" (Ltd)`))
	fmt.Println(filter.QuoteValue(""))
	// Output:
	// complete
	// "Müller, \"Bob\" (Ltd)"
	// ""
}
