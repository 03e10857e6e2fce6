// Command stateserver keeps Terraform states in memory behind the protocol
// of Terraform's http backend (GET, POST and DELETE, one state per path),
// for the feed benchmark (tools/bench.sh feed, FEED_BACKEND=http): it
// compares an apply against a remote backend, whose state Terraform
// persists every 20 s (TF_STATE_PERSIST_INTERVAL), with one against the
// local file, which Terraform writes whole after every instance.
//
//	stateserver -addr 127.0.0.1:0 -ready-file FILE
//
// It writes its base address (http://host:port) to the ready file once it
// listens. GET /writes?path=P says how many times a state was written. It
// keeps no lock: one operation per state at a time.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	ready := flag.String("ready-file", "", "file to write the base address to once listening")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("stateserver: %v (is another one listening there?)", err)
	}
	base := fmt.Sprintf("http://%s", ln.Addr())
	if *ready != "" {
		if err := os.WriteFile(*ready, []byte(base), 0o600); err != nil {
			log.Fatal(err)
		}
	}
	s := &states{body: map[string][]byte{}, writes: map[string]int{}}
	http.HandleFunc("/writes", s.count)
	http.HandleFunc("/", s.serve)
	log.Printf("stateserver: states under %s/", base)
	if err := http.Serve(ln, nil); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// states are the states by path, and how many times Terraform wrote each.
type states struct {
	mu     sync.Mutex
	body   map[string][]byte
	writes map[string]int
}

func (s *states) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := r.URL.Path
	switch r.Method {
	case http.MethodGet:
		b, ok := s.body[p]
		if !ok {
			w.WriteHeader(http.StatusNoContent) // no state yet
			return
		}
		_, _ = w.Write(b)
	case http.MethodPost:
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.body[p] = b
		s.writes[p]++
	case http.MethodDelete:
		delete(s.body, p)
	default:
		http.Error(w, "GET, POST or DELETE", http.StatusMethodNotAllowed)
	}
}

func (s *states) count(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintln(w, s.writes[r.URL.Query().Get("path")])
}
