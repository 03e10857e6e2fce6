package provider

import (
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
)

var fileType = recordType[commerce.File]{
	kind: commerce.Files,
	fields: recordFields(
		stringField("file_name", "Name of the file.", func(f commerce.File) string { return f.FileName }),
		stringField("mime_type", "Media type, e.g. `image/png`.", func(f commerce.File) string { return f.MimeType }),
		int64Field("file_size", "Size in bytes.", func(f commerce.File) *int64 { return f.FileSize }),
		int64Field("width", "Width in pixels, for images; null otherwise (`meta.dimensions.width`).", func(f commerce.File) *int64 { return f.Width }),
		int64Field("height", "Height in pixels, for images; null otherwise (`meta.dimensions.height`).", func(f commerce.File) *int64 { return f.Height }),
		boolField("public", "Whether the file can be fetched without credentials (deprecated by the service).", func(f commerce.File) *bool { return f.Public }),
		stringField("href", "Address the file is served from (`link.href`).", func(f commerce.File) string { return f.Href }),
	),
	lookupKeys: []string{"file_name"},
	example:    "like(file_name,invoice-*):ge(file_size,1048576)",
}

// newFilesDataSource is commerce_files.
func newFilesDataSource() datasource.DataSource {
	return &typedListDataSource[commerce.File]{rt: fileType}
}
