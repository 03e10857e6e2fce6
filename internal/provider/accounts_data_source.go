package provider

import (
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
)

var accountType = recordType[commerce.Account]{
	kind: commerce.Accounts,
	fields: recordFields(
		updatedAt[commerce.Account](),
		stringField("name", "Name of the account.", func(a commerce.Account) string { return a.Name }),
		stringField("legal_name", "Legal name of the organisation behind the account.", func(a commerce.Account) string { return a.LegalName }),
		stringField("registration_id", "Company registration identifier.", func(a commerce.Account) string { return a.RegistrationID }),
		stringField("external_ref", "Reference of the account in another system.", func(a commerce.Account) string { return a.ExternalRef }),
		stringField("parent_id", "Id of the parent account; null for a top-level account.", func(a commerce.Account) string { return a.ParentID }),
	),
	lookupKeys: []string{"name", "legal_name", "registration_id"},
	example:    `eq(name,"Acme, Inc."):ge(created_at,2026-01-01T00:00:00.000Z)`,
}

// newAccountsDataSource is commerce_accounts.
func newAccountsDataSource() datasource.DataSource {
	return &typedListDataSource[commerce.Account]{rt: accountType}
}
