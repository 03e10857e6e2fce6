package emulator

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDeterminism(t *testing.T) {
	opts := Options{Orders: 3000, Files: 200, Accounts: 150, Seed: 42}
	a, b := New(opts), New(opts)
	if !reflect.DeepEqual(a.Orders(), b.Orders()) || !reflect.DeepEqual(a.Files(), b.Files()) || !reflect.DeepEqual(a.Accounts(), b.Accounts()) ||
		!reflect.DeepEqual(a.Customers(), b.Customers()) || !reflect.DeepEqual(a.Hierarchies(), b.Hierarchies()) {
		t.Fatal("same options, different data")
	}
	// Writes are deterministic too (apart from their timestamps).
	oa, ob := a.InsertOrder(), b.InsertOrder()
	if oa.ID != ob.ID || oa.OrderNumber != ob.OrderNumber || oa.CustomerEmail != ob.CustomerEmail {
		t.Error("inserted orders differ")
	}
	c := New(Options{Orders: 3000, Files: 200, Accounts: 150, Seed: 43})
	if c.Orders()[0].ID == a.Orders()[0].ID || c.Accounts()[30].Name == a.Accounts()[30].Name {
		t.Error("different seeds, same data")
	}
	// Changing one count leaves the other resources alone.
	d := New(Options{Orders: 10, Files: 200, Accounts: 150, Seed: 42})
	if !reflect.DeepEqual(d.Accounts(), b.Accounts()) || !reflect.DeepEqual(d.Files(), b.Files()) ||
		!reflect.DeepEqual(d.Customers(), b.Customers()) || !reflect.DeepEqual(d.Hierarchies(), b.Hierarchies()) {
		t.Error("order count changes other resources")
	}
	e := New(Options{Orders: 3000, Files: 200, Accounts: 150, Customers: 7, Hierarchies: 3, Seed: 42})
	if fresh := New(opts); !reflect.DeepEqual(e.Orders(), fresh.Orders()) || !reflect.DeepEqual(e.Accounts(), fresh.Accounts()) {
		t.Error("customer or hierarchy counts change orders or accounts")
	}
}

func TestDefaults(t *testing.T) {
	s := New(Options{})
	if s.Count("orders") != 2500 || s.Count("files") != 300 || s.Count("accounts") != 250 ||
		s.Count("customers") != DefaultCustomers || s.Count("hierarchies") != DefaultHierarchies {
		t.Errorf("counts %d %d %d %d %d", s.Count("orders"), s.Count("files"), s.Count("accounts"), s.Count("customers"), s.Count("hierarchies"))
	}
	if o := s.Orders()[0]; !o.CreatedAt.Equal(DefaultBaseTime) {
		t.Errorf("first created_at %v", o.CreatedAt)
	}
	if g, _ := largestTieGroup(oracleRows(s, "orders"), "created_at"); len(g) != 350 {
		t.Errorf("default order tie group %d", len(g))
	}
	none := New(Options{Orders: -1, Files: -1, Accounts: -1, Customers: -1, Hierarchies: -1, OrderTieGroups: []int{}})
	if none.Count("orders")+none.Count("files")+none.Count("accounts")+none.Count("customers")+none.Count("hierarchies") != 0 {
		t.Error("negative counts")
	}
	if ids, err := none.ExpectedIDs("orders", "", "-created_at"); err != nil || len(ids) != 0 {
		t.Errorf("empty table: %v %v", ids, err)
	}
	noTies := New(Options{Orders: 2000, OrderTieGroups: []int{}})
	if g, _ := largestTieGroup(oracleRows(noTies, "orders"), "created_at"); len(g) > 10 {
		t.Errorf("tie group of %d without tie groups", len(g))
	}
}

var (
	uuidRe    = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	emailRe   = regexp.MustCompile(`^[a-z]+\.[a-z]+[0-9]{1,2}@example\.(com|org)$`)
	orderNoRe = regexp.MustCompile(`^ORD-[0-9]{7}$`)
	skuRe     = regexp.MustCompile(`^SKU-00[0-9]{2}$`)
)

func TestGeneratedData(t *testing.T) {
	s := New(Options{Orders: 20000, Files: 2000, Accounts: 3000})
	seen := map[string]bool{}
	unique := func(kind, v string) {
		t.Helper()
		if seen[kind+"\x00"+v] {
			t.Fatalf("duplicate %s %q", kind, v)
		}
		seen[kind+"\x00"+v] = true
	}
	checkTimes := func(kind string, i int, c, u, prev time.Time) {
		t.Helper()
		if u.Before(c) || c.Before(prev) || c.Nanosecond()%int(time.Millisecond) != 0 || c.After(time.Now()) {
			t.Fatalf("%s %d: created %v updated %v previous %v", kind, i, c, u, prev)
		}
	}
	orders := s.Orders()
	var prev time.Time
	domains, statuses, currencies := map[string]int{}, map[string]int{}, map[string]int{}
	equalNeighbours := 0
	byCustomer, byMember := map[string][]Order{}, map[string][]Order{}
	memberAccount, products := map[string]string{}, map[string]string{}
	guests, shippedElsewhere := 0, 0
	for i, o := range orders {
		unique("id", o.ID)
		unique("order_number", o.OrderNumber)
		if !uuidRe.MatchString(o.ID) || !orderNoRe.MatchString(o.OrderNumber) || !emailRe.MatchString(o.CustomerEmail) || o.CustomerName == "" {
			t.Fatalf("order %+v", o)
		}
		if o.CreatedAt.Equal(prev) {
			equalNeighbours++
		}
		checkTimes("order", i, o.CreatedAt, o.UpdatedAt, prev)
		prev = o.CreatedAt
		domains[o.CustomerEmail[strings.Index(o.CustomerEmail, "@"):]]++
		statuses[o.Status+"/"+o.Payment+"/"+o.Shipping]++
		currencies[o.Currency]++
		if o.WithTax <= 0 || o.WithoutTax <= 0 || o.WithoutTax >= o.WithTax ||
			o.WithTax-o.WithoutTax < o.WithTax/7 || o.WithTax-o.WithoutTax > o.WithTax/5 {
			t.Fatalf("prices with_tax %d without_tax %d", o.WithTax, o.WithoutTax)
		}
		if o.ContactName != o.CustomerName || o.ContactEmail != o.CustomerEmail || o.ShippingPostcode == "" || o.BillingPostcode == "" ||
			!uuidRe.MatchString(o.ItemID) || !uuidRe.MatchString(o.ProductID) || !skuRe.MatchString(o.ProductSKU) {
			t.Fatalf("order %+v", o)
		}
		unique("item id", o.ItemID)
		switch {
		case o.CustomerID != "":
			if o.AccountID != "" || o.AccountMemberID != "" || !uuidRe.MatchString(o.CustomerID) {
				t.Fatalf("customer order %+v", o)
			}
			byCustomer[o.CustomerID] = append(byCustomer[o.CustomerID], o)
		case o.AccountID != "":
			if !uuidRe.MatchString(o.AccountID) || !uuidRe.MatchString(o.AccountMemberID) {
				t.Fatalf("account order %+v", o)
			}
			byMember[o.AccountMemberID] = append(byMember[o.AccountMemberID], o)
			memberAccount[o.AccountMemberID] = o.AccountID
		default:
			if o.AccountMemberID != "" {
				t.Fatalf("guest order %+v", o)
			}
			guests++
		}
		if p, ok := products[o.ProductSKU]; ok && p != o.ProductID {
			t.Fatalf("SKU %s is products %s and %s", o.ProductSKU, p, o.ProductID)
		}
		products[o.ProductSKU] = o.ProductID
		if o.ShippingPostcode != o.BillingPostcode {
			shippedElsewhere++
		}
	}
	// Most orders have a customer, several orders share one, and orders of
	// one buyer share the buyer's name, email and billing address.
	customerOrders, shared := 0, 0
	for _, os := range []map[string][]Order{byCustomer, byMember} {
		for _, list := range os {
			if len(list) > 1 {
				shared++
			}
			for _, o := range list {
				if o.CustomerEmail != list[0].CustomerEmail || o.CustomerName != list[0].CustomerName || o.BillingPostcode != list[0].BillingPostcode {
					t.Fatalf("orders of one buyer differ: %+v %+v", o, list[0])
				}
			}
		}
	}
	for _, list := range byCustomer {
		customerOrders += len(list)
	}
	members := map[string]int{}
	for _, a := range memberAccount {
		members[a]++
	}
	membersOfShared := 0
	for _, n := range members {
		if n > 1 {
			membersOfShared++
		}
	}
	if customerOrders < len(orders)/2 || guests < len(orders)/10 || len(byMember) < 100 || shared < 1000 ||
		len(products) != 50 || membersOfShared < 100 || shippedElsewhere < len(orders)/20 {
		t.Errorf("%d customer orders of %d customers, %d guest orders, %d members, %d accounts (%d with several members), %d buyers with several orders, %d products, %d shipped elsewhere",
			customerOrders, len(byCustomer), guests, len(byMember), len(members), membersOfShared, shared, len(products), shippedElsewhere)
	}
	if domains["@example.com"] < 10000 || domains["@example.org"] < 2000 || len(currencies) != 3 || len(statuses) < 6 || equalNeighbours < 350 {
		t.Errorf("domains %v currencies %v statuses %v equal neighbours %d", domains, currencies, statuses, equalNeighbours)
	}
	for status := range statuses {
		parts := strings.Split(status, "/")
		if !slices.Contains([]string{"incomplete", "processing", "complete", "cancelled"}, parts[0]) ||
			!slices.Contains([]string{"unpaid", "authorized", "paid", "refunded"}, parts[1]) ||
			!slices.Contains([]string{"unfulfilled", "fulfilled"}, parts[2]) {
			t.Errorf("status combination %s", status)
		}
	}
	// Ids do not sort like creation.
	ids := make([]string, 0, 100)
	for _, o := range orders[:100] {
		ids = append(ids, o.ID)
	}
	if slices.IsSorted(ids) {
		t.Error("ids sort like created_at")
	}

	prev = time.Time{}
	images := 0
	for i, f := range s.Files() {
		unique("id", f.ID)
		if !uuidRe.MatchString(f.ID) || f.FileName == "" || !strings.Contains(f.MimeType, "/") || f.FileSize <= 0 ||
			f.Link != "https://files.example.test/"+f.ID+"/"+f.FileName {
			t.Fatalf("file %+v", f)
		}
		if strings.HasPrefix(f.MimeType, "image/") {
			images++
			if f.Width < 16 || f.Width > 4096 || f.Height < 16 || f.Height > 4096 {
				t.Fatalf("image %+v", f)
			}
		} else if f.Width != 0 || f.Height != 0 {
			t.Fatalf("dimensions of a %s: %+v", f.MimeType, f)
		}
		checkTimes("file", i, f.CreatedAt, f.CreatedAt, prev)
		prev = f.CreatedAt
	}
	if images < 1000 || images > 1700 {
		t.Errorf("%d images of 2000 files", images)
	}

	prev = time.Time{}
	accounts := s.Accounts()
	byID := map[string]int{}
	withParent := 0
	for i, a := range accounts {
		unique("id", a.ID)
		unique("name", a.Name)
		unique("legal_name", a.LegalName)
		unique("registration_id", a.RegistrationID)
		if a.ExternalRef != "" {
			unique("external_ref", a.ExternalRef)
		}
		if !uuidRe.MatchString(a.ID) || a.Name == "" || a.LegalName == "" || a.RegistrationID == "" {
			t.Fatalf("account %+v", a)
		}
		if a.ParentID != "" {
			p, ok := byID[a.ParentID]
			if !ok || p >= i {
				t.Fatalf("account %d has parent %q that is not an earlier account", i, a.ParentID)
			}
			withParent++
		}
		byID[a.ID] = i
		checkTimes("account", i, a.CreatedAt, a.UpdatedAt, prev)
		prev = a.CreatedAt
	}
	if withParent < len(accounts)/10 {
		t.Errorf("%d accounts with a parent", withParent)
	}
	for i, name := range []string{"Acme, Inc.", "Smith (Holdings) Ltd", "Key: Value Partners", "O'Brien & Sons", `The "Quoted" Company`,
		`Back\slash Trading`, "Star*Power Ventures", " Leading Space Co", "Trailing Space Co ", "Müller & Söhne GmbH", "東京商事", "Rocket 🚀 Labs"} {
		if !slices.ContainsFunc(accounts[:25], func(a Account) bool { return a.Name == name }) {
			t.Errorf("hostile name %d %q missing", i, name)
		}
	}
}

func TestGenerationSpeed(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	limit := time.Second
	if raceEnabled {
		limit *= 4
	}
	start := time.Now()
	s := New(Options{Orders: 100000})
	if d := time.Since(start); d > limit {
		t.Errorf("generating 100,000 orders took %v", d)
	}
	if s.Count("orders") != 100000 {
		t.Fatal("count")
	}
	last := s.Orders()[99999]
	if last.CreatedAt.After(DefaultBaseTime.AddDate(1, 0, 0)) {
		t.Errorf("records span past a year: %v", last.CreatedAt)
	}
}

func TestAppendTimestamp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := []int64{0, 1, 999, 86399999, 86400000, -1, 951782400000 /* 2000-02-29 */, 253402300799999 /* 9999-12-31 */, -62135596800000 /* year 1 */}
	for range 100000 {
		cases = append(cases, rng.Int64N(253402300799999))
	}
	for _, ms := range cases {
		got := string(appendTimestamp(nil, ms))
		if want := time.UnixMilli(ms).UTC().Format(timestampLayout); got != want {
			t.Fatalf("appendTimestamp(%d) = %s, want %s", ms, got, want)
		}
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uo\te`, "tab\tnl\ncr\r\x00\x1f", "東京商事 🚀", "bad\xffutf8", "line\u2028sep\u2029", "<&>"} {
		b := appendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%q -> %s: %v", s, b, err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); back != want {
			t.Errorf("%q round-trips to %q", s, back)
		}
	}
}

// TestAppendStringRandom round-trips random strings, mostly plain with a
// few special bytes anywhere, through appendString and encoding/json.
func TestAppendStringRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	special := []string{`"`, `\`, "\n", "\x00", "\x1f", "\x7f", "é", "🚀", "\xff", "\u2028", " ", "~"}
	for range 20000 {
		var sb strings.Builder
		for range rng.IntN(40) {
			if rng.IntN(6) == 0 {
				sb.WriteString(special[rng.IntN(len(special))])
			} else {
				sb.WriteByte(byte(0x20 + rng.IntN(0x5f)))
			}
		}
		s := sb.String()
		b := appendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%q -> %s: %v", s, b, err)
		}
		if want := string([]rune(s)); back != want { // U+FFFD for each invalid byte
			t.Fatalf("%q round-trips to %q", s, back)
		}
	}
}

// writeOptions are the data of the write tests: a tie group of orders to
// write inside, and few files and accounts.
var writeOptions = Options{Orders: 500, Files: 50, Accounts: 40, OrderTieGroups: []int{100}}

// latestOrderUpdate is the latest updated_at of any order.
func latestOrderUpdate(s *Server) time.Time {
	var latest time.Time
	for _, o := range s.Orders() {
		if o.UpdatedAt.After(latest) {
			latest = o.UpdatedAt
		}
	}
	return latest
}

// checkIndexes requires every sort of every resource to agree with the
// oracle.
func checkIndexes(t *testing.T, s *Server) {
	t.Helper()
	for _, res := range []string{"orders", "files", "accounts"} {
		rows := oracleRows(s, res)
		for _, sortParam := range sortValues[res] {
			got := expectedIDs(t, s, res, "", sortParam)
			if !slices.Equal(got, oracleIDs(res, rows, nil, sortParam)) {
				t.Errorf("%s sort=%s disagrees with the oracle", res, sortParam)
			}
		}
	}
}

func TestWrites(t *testing.T) {
	t.Run("insert order", testInsertOrder)
	t.Run("update order", testUpdateOrder)
	t.Run("delete order", testDeleteOrder)
	t.Run("update file", func(t *testing.T) {
		s := New(writeOptions)
		f := s.InsertFile()
		uf, err := s.UpdateFile(f.ID)
		if err != nil || uf.Public == f.Public || !uf.CreatedAt.Equal(f.CreatedAt) {
			t.Errorf("update file %+v %v", uf, err)
		}
		if err := s.DeleteFile(f.ID); err != nil {
			t.Error(err)
		}
		checkIndexes(t, s)
	})
	t.Run("update account", func(t *testing.T) {
		s := New(writeOptions)
		a := s.InsertAccount()
		if a.Name == "" || a.RegistrationID == "" {
			t.Errorf("account %+v", a)
		}
		ua, err := s.UpdateAccount(a.ID)
		if err != nil || ua.Name != a.Name || ua.ExternalRef == a.ExternalRef || !ua.UpdatedAt.After(a.UpdatedAt) {
			t.Errorf("update account %+v %v", ua, err)
		}
		if err := s.DeleteAccount(a.ID); err != nil {
			t.Error(err)
		}
		checkIndexes(t, s)
	})
	for _, res := range []string{"orders", "files", "accounts"} {
		t.Run("by name/"+res, func(t *testing.T) { testWritesByName(t, res) })
	}
	t.Run("unknown resource", func(t *testing.T) {
		s := New(writeOptions)
		if _, err := s.Insert("nope"); !errors.Is(err, errUnknownResource) {
			t.Errorf("insert: %v", err)
		}
		if err := s.Update("nope", "x"); !errors.Is(err, errUnknownResource) {
			t.Errorf("update: %v", err)
		}
		if err := s.Delete("nope", "x"); !errors.Is(err, errUnknownResource) {
			t.Errorf("delete: %v", err)
		}
	})
}

// testInsertOrder: an inserted order is last by created_at and updated_at
// and first in the default order.
func testInsertOrder(t *testing.T) {
	c := startServer(t, writeOptions)
	s := c.s
	before := expectedIDs(t, s, "orders", "", "created_at")
	seeded := latestOrderUpdate(s)
	o := s.InsertOrder()
	if !o.CreatedAt.After(seeded) || !o.UpdatedAt.Equal(o.CreatedAt) || o.OrderNumber != "ORD-0000501" {
		t.Errorf("inserted %+v", o)
	}
	after := expectedIDs(t, s, "orders", "", "created_at")
	if !slices.Equal(after[:500], before) || after[500] != o.ID || s.Count("orders") != 501 {
		t.Error("insert misplaced in created_at order")
	}
	if def := expectedIDs(t, s, "orders", "", ""); def[0] != o.ID {
		t.Error("insert not first in the default order")
	}
	if since := expectedIDs(t, s, "orders", "ge(updated_at,"+o.UpdatedAt.Format(timestampLayout)+")", ""); !slices.Equal(since, []string{o.ID}) {
		t.Errorf("updated since the insert: %v", since)
	}
	if resp, body := c.get("/v2/orders/"+o.ID, ""); resp.StatusCode != 200 {
		t.Errorf("GET inserted: %d %s", resp.StatusCode, body)
	}
	checkIndexes(t, s)
}

// testUpdateOrder: an updated order gets a later updated_at and keeps its
// created_at place; cached results on the changed attributes and sorts are
// invalidated.
func testUpdateOrder(t *testing.T) {
	c := startServer(t, writeOptions)
	s := c.s
	byCreated := expectedIDs(t, s, "orders", "", "created_at")
	seeded := latestOrderUpdate(s)
	beforeUpd := expectedIDs(t, s, "orders", "eq(status,complete)", "-status") // cached result
	byStatus := expectedIDs(t, s, "orders", "", "status")
	target := byCreated[250] // inside the tie group
	old := findOrder(s.Orders(), target)
	upd, err := s.UpdateOrder(target)
	if err != nil || !upd.UpdatedAt.After(seeded) || !upd.CreatedAt.Equal(old.CreatedAt) {
		t.Fatalf("update: %v %+v", err, upd)
	}
	since := "gt(updated_at," + seeded.Format(timestampLayout) + ")"
	if byUpd := expectedIDs(t, s, "orders", since, ""); !slices.Equal(byUpd, []string{target}) {
		t.Errorf("updated since the seeded data: %v", byUpd)
	}
	if again := expectedIDs(t, s, "orders", "", "status"); old.Status != upd.Status && slices.Equal(again, byStatus) {
		t.Error("status index not updated")
	}
	if again := expectedIDs(t, s, "orders", "", "created_at"); !slices.Equal(again, byCreated) {
		t.Error("update changed created_at order")
	}
	nowComplete := expectedIDs(t, s, "orders", "eq(status,complete)", "-status")
	if old.Status == "processing" && (!slices.Contains(nowComplete, target) || len(nowComplete) != len(beforeUpd)+1) {
		t.Error("cached filter result not invalidated by the update")
	}
	if old.Status != "processing" && !slices.Equal(nowComplete, beforeUpd) {
		t.Error("update changed an unrelated filter result")
	}
	lb := c.list("orders", q("filter", since, "sort", "created_at"))
	if len(lb.Data) != 1 || lb.Data[0].ID != target {
		t.Errorf("changes since the seeded data: %v", lb.ids())
	}
	checkIndexes(t, s)
}

// testDeleteOrder: a deleted order (from inside a tie group) is gone
// everywhere.
func testDeleteOrder(t *testing.T) {
	c := startServer(t, writeOptions)
	s := c.s
	byCreated := expectedIDs(t, s, "orders", "", "created_at")
	target := byCreated[250]
	if err := s.DeleteOrder(target); err != nil {
		t.Fatal(err)
	}
	for _, sortParam := range sortValues["orders"] {
		ids := expectedIDs(t, s, "orders", "", sortParam)
		if slices.Contains(ids, target) || len(ids) != 499 {
			t.Errorf("sort=%s still has the deleted order (%d ids)", sortParam, len(ids))
		}
	}
	if resp, body := c.get("/v2/orders/"+target, ""); resp.StatusCode != 404 {
		t.Errorf("GET deleted: %d %s", resp.StatusCode, body)
	}
	if findOrder(s.Orders(), target) != nil || s.Count("orders") != 499 {
		t.Error("Orders() still has the deleted order")
	}
	if _, err := s.UpdateOrder(target); err == nil {
		t.Error("update of a deleted order")
	}
	if err := s.DeleteOrder(target); err == nil {
		t.Error("double delete")
	}
	checkIndexes(t, s)
}

// testWritesByName writes through Insert, Update and Delete, which take the
// resource by name.
func testWritesByName(t *testing.T, res string) {
	s := New(writeOptions)
	n := s.Count(res)
	id, err := s.Insert(res)
	if err != nil || s.Count(res) != n+1 {
		t.Fatalf("insert: %v, %d records", err, s.Count(res))
	}
	if err := s.Update(res, id); err != nil {
		t.Error(err)
	}
	checkIndexes(t, s)
	if err := s.Delete(res, id); err != nil || s.Count(res) != n {
		t.Errorf("delete: %v, %d records", err, s.Count(res))
	}
	if err := s.Update(res, id); err == nil {
		t.Error("update of a deleted record")
	}
	if err := s.Delete(res, id); err == nil {
		t.Error("double delete")
	}
	checkIndexes(t, s)
}

func findOrder(orders []Order, id string) *Order {
	for i := range orders {
		if orders[i].ID == id {
			return &orders[i]
		}
	}
	return nil
}

func TestWriteClock(t *testing.T) {
	future := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(Options{Orders: 10, Files: 1, Accounts: 1, Now: func() time.Time { return future }})
	a, b := s.InsertOrder(), s.InsertOrder()
	if !a.CreatedAt.Equal(future) || !b.CreatedAt.Equal(future.Add(time.Millisecond)) {
		t.Errorf("clock: %v %v", a.CreatedAt, b.CreatedAt)
	}
	past := New(Options{Orders: 10, Files: 1, Accounts: 1, Now: func() time.Time { return time.Unix(0, 0) }})
	c := past.InsertOrder()
	if !c.CreatedAt.After(past.Orders()[9].UpdatedAt) {
		t.Error("write clock not after seeded timestamps")
	}
}

// TestConcurrentReadsAndWrites pages through lists over HTTP while writes
// happen (run with -race).
func TestConcurrentReadsAndWrites(t *testing.T) {
	c := startServer(t, Options{Orders: 3000, Files: 100, Accounts: 100})
	s := c.s
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for i := range 200 {
			o := s.InsertOrder()
			if i%2 == 0 {
				_, _ = s.UpdateOrder(o.ID)
			}
			if i%3 == 0 {
				_ = s.DeleteOrder(o.ID)
			}
			id, _ := s.Insert("accounts")
			_ = s.Update("accounts", id)
		}
	})
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				for _, qv := range []url.Values{
					q("sort", "-with_tax", "page[limit]", "100", "filter", "eq(status,complete)"),
					q("page[limit]", "100", "filter", "gt(updated_at,2024-03-01T00:00:00.000Z)"),
					q("sort", "created_at", "page[limit]", "100", "page[offset]", "2900"),
					q("sort", "-name", "page[limit]", "50"),
				} {
					res := "orders"
					if qv.Get("sort") == "-name" {
						res = "accounts"
					}
					resp, body := c.get("/v2/"+res, qv.Encode())
					if resp.StatusCode != 200 {
						t.Errorf("%d %s", resp.StatusCode, body)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if s.Count("orders") != 3000+200-67 {
		t.Errorf("%d orders", s.Count("orders"))
	}
	rows := oracleRows(s, "orders")
	for _, sortParam := range sortValues["orders"] {
		got := expectedIDs(t, s, "orders", "", sortParam)
		if !slices.Equal(got, oracleIDs("orders", rows, nil, sortParam)) {
			t.Errorf("sort=%s wrong after concurrent writes", sortParam)
		}
	}
}
