package emulator

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// discardWriter is a minimal http.ResponseWriter, so that benchmarks measure
// the server rather than a recorder.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(s int)   { w.status = s }
func (w *discardWriter) Write(b []byte) (int, error) {
	w.n += len(b)
	return len(b), nil
}

func benchToken(b *testing.B, s *Server) string {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/oauth/access_token", strings.NewReader(url.Values{
		"grant_type": {"client_credentials"}, "client_id": {DefaultClientID}, "client_secret": {DefaultClientSecret}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	s.ServeHTTP(rec, req)
	var tok tokenBody
	if err := json.Unmarshal(rec.Body.Bytes(), &tok); err != nil || tok.AccessToken == "" {
		b.Fatalf("token: %s", rec.Body.String())
	}
	return tok.AccessToken
}

// keysetRequests builds one request per page of a created_at keyset
// traversal of all orders (each with its own filter), plus extra terms.
func keysetRequests(s *Server, token, extra string) []*http.Request {
	orders := s.Orders() // storage order is created_at order
	var reqs []*http.Request
	for i := 0; i < len(orders); i += 100 {
		f := "ge(created_at," + orders[i].CreatedAt.Format(timestampLayout) + ")" + extra
		req := httptest.NewRequest(http.MethodGet, "/v2/orders?"+url.Values{
			"sort": {"created_at"}, "page[limit]": {"100"}, "filter": {f}}.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		reqs = append(reqs, req)
	}
	return reqs
}

func runRequests(b *testing.B, s *Server, reqs []*http.Request) {
	w := &discardWriter{h: http.Header{}}
	bytes := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		clear(w.h)
		w.n = 0
		s.ServeHTTP(w, reqs[i%len(reqs)])
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
		bytes += w.n
	}
	b.ReportMetric(float64(bytes)/float64(b.N), "B/page")
}

// BenchmarkListPage100k serves one 100-order page of a keyset traversal of
// 100,000 orders: sort=created_at with a moving ge(created_at,...) filter.
func BenchmarkListPage100k(b *testing.B) {
	s := New(Options{Orders: 100000, RequestLogSize: -1})
	runRequests(b, s, keysetRequests(s, benchToken(b, s), ""))
}

// BenchmarkListPage100kFiltered adds a term on another attribute, which is
// evaluated once and cached, to every keyset page.
func BenchmarkListPage100kFiltered(b *testing.B) {
	s := New(Options{Orders: 100000, RequestLogSize: -1})
	runRequests(b, s, keysetRequests(s, benchToken(b, s), ":eq(status,complete)"))
}

// BenchmarkListPage100kOffset pages through one filter by offset.
func BenchmarkListPage100kOffset(b *testing.B) {
	s := New(Options{Orders: 100000, RequestLogSize: -1})
	token := benchToken(b, s)
	var reqs []*http.Request
	for off := 0; off <= 10000; off += 100 {
		req := httptest.NewRequest(http.MethodGet, "/v2/orders?"+url.Values{
			"sort": {"-with_tax"}, "page[limit]": {"100"}, "page[offset]": {strconv.Itoa(off)},
			"filter": {"like(email,*@example.com)"}}.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		reqs = append(reqs, req)
	}
	runRequests(b, s, reqs)
}

// BenchmarkListPage100kHTTP is BenchmarkListPage100k over a real loopback
// connection, client included.
func BenchmarkListPage100kHTTP(b *testing.B) {
	s, err := Start(Options{Orders: 100000, RequestLogSize: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	reqs := keysetRequests(s, benchToken(b, s), "")
	hc := &http.Client{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		req, _ := http.NewRequest(http.MethodGet, s.URL()+reqs[i%len(reqs)].URL.String(), nil)
		req.Header = reqs[i%len(reqs)].Header
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

// BenchmarkGenerate100k measures generating 100,000 orders (plus the
// default files and accounts).
func BenchmarkGenerate100k(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		New(Options{Orders: 100000})
	}
}

// BenchmarkAppendOrders encodes a page of 100 orders into a buffer: the
// order encoder alone, without routing, filtering or the response.
func BenchmarkAppendOrders(b *testing.B) {
	s := New(Options{Orders: 1000, Files: -1, Accounts: -1, Customers: -1, Hierarchies: -1, RequestLogSize: -1})
	t := s.table("orders")
	enc := newEncoding(httptest.NewRequest(http.MethodGet, "/v2/orders", nil), false)
	buf := make([]byte, 0, 256<<10)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = buf[:0]
		for row := range int32(100) {
			buf = appendOrder(buf, t, (int32(i)*100+row)%1000, enc)
		}
	}
	b.ReportMetric(float64(len(buf)), "B/page")
}
