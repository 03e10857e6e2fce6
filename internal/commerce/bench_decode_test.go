package commerce

// The decoder's own cost: one page of 100 records of each typed kind,
// decoded as fetchPage decodes it (no HTTP).
//
//	go test ./internal/client -run '^$' -bench 'Decode' -benchtime 2x
//
// Each iteration decodes decodeBenchPages pages (100,000 records), so that
// -benchtime 2x compares two builds even on a loaded machine. The bodies
// are built here, shaped like the vendor's full records (every member the
// reference documents, relationships and addresses included), so that the
// figures do not move with the emulator's output.

import (
	"fmt"
	"strings"
	"testing"
)

// decodeBenchPages is how many pages of 100 records one iteration decodes:
// 100,000 records, the size of the listing the provider is tuned for.
const decodeBenchPages = 1000

func benchUUID(kind, i int) string {
	return fmt.Sprintf("%08x-4d2a-4f23-8d63-%012x", kind*1000003+i, i*7919)
}

func benchStamp(i int) string {
	return fmt.Sprintf("2024-01-%02dT%02d:%02d:%02d.%03dZ", 1+i/86400%28, i/3600%24, i/60%60, i%60, i*37%1000)
}

func benchPage(records func(i int) string) []byte {
	var b strings.Builder
	b.WriteString(`{"data":[`)
	for i := range 100 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(records(i))
	}
	b.WriteString(`],"links":{"first":"https://useast.api.elasticpath.com/v2/x?page%5Blimit%5D=100&page%5Boffset%5D=0","prev":null,` +
		`"next":"https://useast.api.elasticpath.com/v2/x?page%5Blimit%5D=100&page%5Boffset%5D=100"},` +
		`"meta":{"page":{"limit":100,"offset":0,"current":1,"total":10},"results":{"total":1000}}}`)
	return []byte(b.String())
}

func benchOrdersBody() []byte {
	return benchPage(func(i int) string {
		return fmt.Sprintf(`{"type":"order","id":%q,"status":"complete","payment":"paid","shipping":"fulfilled","anonymized":false,`+
			`"order_number":"ORD-%07d","external_ref":"shop-%d","customer":{"name":"Olivia Dubois","email":"olivia.dubois%d@example.com"},`+
			`"contact":{"name":"Olivia Dubois","email":"olivia.dubois%d@example.com"},`+
			`"shipping_address":{"first_name":"Olivia","last_name":"Dubois","line_1":"96 Mill Road","city":"Austin","postcode":"39283","country":"US"},`+
			`"billing_address":{"first_name":"Olivia","last_name":"Dubois","line_1":"96 Mill Road","city":"Austin","postcode":"39283","country":"US"},`+
			`"meta":{"display_price":{"with_tax":{"amount":%d,"currency":"USD","formatted":"$1,012.80"},`+
			`"without_tax":{"amount":%d,"currency":"USD","formatted":"$844.00"},"tax":{"amount":16880,"currency":"USD","formatted":"$168.80"}},`+
			`"timestamps":{"created_at":%q,"updated_at":%q}},`+
			`"relationships":{"items":{"data":[{"type":"item","id":%q}]},"customer":{"data":{"type":"customer","id":%q}},`+
			`"account":{"data":{"type":"account","id":%q}}}}`,
			benchUUID(1, i), i, i, i, i, 100000+i, 84400+i, benchStamp(i), benchStamp(i), benchUUID(2, i), benchUUID(3, i), benchUUID(4, i))
	})
}

func benchFilesBody() []byte {
	return benchPage(func(i int) string {
		return fmt.Sprintf(`{"type":"file","id":%q,"file_name":"image-%d.png","mime_type":"image/png","file_size":%d,"public":true,`+
			`"link":{"href":"https://files-eu.epusercontent.com/e8c53cb0/%s.png"},`+
			`"meta":{"dimensions":{"width":1200,"height":%d},"timestamps":{"created_at":%q}},"links":{"self":"https://x/v2/files/%s"}}`,
			benchUUID(5, i), i, 1000+i*13, benchUUID(6, i), 800+i, benchStamp(i), benchUUID(5, i))
	})
}

func benchAccountsBody() []byte {
	return benchPage(func(i int) string {
		return fmt.Sprintf(`{"type":"account","id":%q,"name":"Acme %d","legal_name":"Acme %d, Inc.","registration_id":"REG-%d","external_ref":"crm-%d",`+
			`"meta":{"timestamps":{"created_at":%q,"updated_at":%q}},"relationships":{"parent":{"data":{"type":"account","id":%q}},`+
			`"ancestors":[{"data":{"type":"account","id":%q}}]},"links":{"self":"https://x/v2/accounts/%s"}}`,
			benchUUID(7, i), i, i, i, i, benchStamp(i), benchStamp(i), benchUUID(8, i), benchUUID(8, i), benchUUID(7, i))
	})
}

func benchDecode[T Record](b *testing.B, kind Kind[T], body []byte) {
	for _, keepRaw := range []bool{false, true} {
		name := "records"
		if keepRaw {
			name = "include_json"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)) * decodeBenchPages)
			b.ReportAllocs()
			for b.Loop() {
				for range decodeBenchPages {
					p, err := DecodeListBody(body, kind, 100, 0, keepRaw, "/bench")
					if err != nil || len(p.Records) != 100 {
						b.Fatalf("%d records, %v", len(p.Records), err)
					}
				}
			}
		})
	}
}

func BenchmarkDecodeOrders(b *testing.B)   { benchDecode(b, Orders, benchOrdersBody()) }
func BenchmarkDecodeFiles(b *testing.B)    { benchDecode(b, Files, benchFilesBody()) }
func BenchmarkDecodeAccounts(b *testing.B) { benchDecode(b, Accounts, benchAccountsBody()) }
