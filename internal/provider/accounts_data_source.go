package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
)

var accountType = recordType[client.Account]{
	kind: client.Accounts,
	fields: recordFields(
		updatedAt[client.Account](),
		stringField("name", "Name of the account.", func(a client.Account) string { return a.Name }),
		stringField("legal_name", "Legal name of the organisation behind the account.", func(a client.Account) string { return a.LegalName }),
		stringField("registration_id", "Company registration identifier.", func(a client.Account) string { return a.RegistrationID }),
		stringField("external_ref", "Reference of the account in another system.", func(a client.Account) string { return a.ExternalRef }),
		stringField("parent_id", "Id of the parent account; null for a top-level account.", func(a client.Account) string { return a.ParentID }),
	),
	lookupKeys: []string{"name", "legal_name", "registration_id"},
	example:    `eq(name,"Acme, Inc."):ge(created_at,2026-01-01T00:00:00.000Z)`,
}

// NewAccountsDataSource is commerce_accounts.
func NewAccountsDataSource() datasource.DataSource {
	return &typedListDataSource[client.Account]{rt: accountType}
}
