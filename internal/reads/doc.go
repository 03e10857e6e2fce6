// Package reads serves the provider's reads of lists around the listing
// engine: reads that need one listing share it (read.go), a read that
// comes once a listing of its list has handed out records refreshes what
// that listing kept (read.go's keeping, cached.go's refreshKept), and a
// listing is refreshed from the cache between runs where that can prove
// the result exact (cached.go), else listed by the engine in full.
//
// The engine (internal/listing) knows neither: it plans a read once
// (listing.Plan) and offers what sharing and the cache need of it: the
// listing's name, what its readers need together, the listing read in
// full, and the count, first page and ranges a refresh asks for
// (internal/refresh's Source, which a listing.Listing is).
package reads
