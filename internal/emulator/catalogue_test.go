package emulator

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The customers and hierarchies endpoints, beyond what the oracle tests of
// query_test.go check for every resource.

// TestCustomerShape compares each customer with the vendor's example body
// (get-all-customers.md): external_ref only when set, timestamps under
// meta.timestamps, or at the top level in the flat form.
func TestCustomerShape(t *testing.T) {
	for _, flat := range []bool{false, true} {
		c := startServer(t, Options{Orders: 5, Files: 5, Accounts: 5, Customers: 60, FlatTimestamps: flat})
		withRef, withoutRef := 0, 0
		for _, cu := range c.s.Customers() {
			var got map[string]any
			c.getJSON("/v2/customers/"+url.PathEscape(cu.ID), "", &got)
			data := map[string]any{"type": "customer", "id": cu.ID, "name": cu.Name, "email": cu.Email, "password": cu.Password}
			ts := map[string]any{"created_at": cu.CreatedAt.Format(timestampLayout), "updated_at": cu.UpdatedAt.Format(timestampLayout)}
			if flat {
				data["created_at"], data["updated_at"] = ts["created_at"], ts["updated_at"]
			} else {
				data["meta"] = map[string]any{"timestamps": ts}
			}
			if cu.ExternalRef != "" {
				data["external_ref"] = cu.ExternalRef
				withRef++
			} else {
				withoutRef++
			}
			if want := map[string]any{"data": data}; !jsonEqual(got, want) {
				t.Errorf("flat=%v customer:\n got %v\nwant %v", flat, got, want)
			}
		}
		if withRef == 0 || withoutRef == 0 {
			t.Errorf("customers with and without external_ref: %d, %d", withRef, withoutRef)
		}
	}
}

// TestCustomerEmailsUnique: the service keeps one customer per email.
func TestCustomerEmailsUnique(t *testing.T) {
	s := New(Options{Orders: -1, Files: -1, Accounts: -1, Customers: 5000})
	seen := map[string]bool{}
	for _, cu := range s.Customers() {
		if seen[cu.Email] || !strings.Contains(cu.Email, "@example.") {
			t.Fatalf("email %q repeated or malformed", cu.Email)
		}
		seen[cu.Email] = true
	}
	inserted := s.InsertCustomer()
	if seen[inserted.Email] {
		t.Errorf("inserted customer repeats email %q", inserted.Email)
	}
}

// TestHierarchies: the catalogue's hierarchies under /pcm, in the vendor's
// shape (resp_multi_hierarchy), in ascending id order, refusing any sort
// and any filter with a 400 naming the parameter.
func TestHierarchies(t *testing.T) {
	for _, flat := range []bool{false, true} {
		c := startServer(t, Options{Orders: 5, Files: 5, Accounts: 5, Hierarchies: 230, FlatTimestamps: flat})
		hs := c.s.Hierarchies()
		ids := make([]string, len(hs))
		for i, h := range hs {
			ids[i] = h.ID
			var got map[string]any
			c.getJSON("/pcm/hierarchies/"+h.ID, "", &got)
			want := map[string]any{"data": map[string]any{
				"type": "hierarchy", "id": h.ID,
				"attributes": map[string]any{"description": h.Description, "name": h.Name, "slug": h.Slug},
				"relationships": map[string]any{"children": map[string]any{
					"data": []any{}, "links": map[string]any{"related": "/hierarchies/" + h.ID + "/children"}}},
				"meta": map[string]any{"created_at": h.CreatedAt.Format(timestampLayout), "owner": "store", "updated_at": h.UpdatedAt.Format(timestampLayout)},
			}}
			if !jsonEqual(got, want) {
				t.Fatalf("flat=%v hierarchy:\n got %v\nwant %v", flat, got, want)
			}
		}
		created := slices.Clone(ids) // storage order is created_at order
		slices.Sort(ids)
		if slices.Equal(created, ids) {
			t.Fatal("id order equals created_at order; the test proves nothing")
		}
		var paged []string
		for offset := 0; offset < len(ids); offset += 100 {
			paged = append(paged, c.list("hierarchies", q("page[limit]", "100", "page[offset]", strconv.Itoa(offset))).ids()...)
		}
		if !slices.Equal(paged, ids) {
			t.Error("API order of hierarchies is not ascending id")
		}
		for param, value := range map[string]string{"sort": "created_at", "filter": "ge(created_at,2024-01-01T00:00:00.000Z)"} {
			resp, body := c.get("/pcm/hierarchies", url.Values{param: {value}}.Encode())
			e := c.wantError(400, resp, body)
			if e.Source == nil || e.Source.Parameter != param || !strings.Contains(e.Detail, "hierarchies") {
				t.Errorf("%s=%s: %s", param, value, body)
			}
		}
	}
}
