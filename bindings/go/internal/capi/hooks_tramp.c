// The C callbacks of Go hooks (see hooks.go): each passes its arguments on to an exported Go
// function, with the user data as an integer (a cgo.Handle value) and each string with its
// length (measured here: a strlen called from Go would be one more cgo call per string).
#include <stdint.h>
#include <string.h>
#include "sqlbatch.h"
#include "_cgo_export.h"

int32_t gosb_commit_hook_tramp(void *ud) { return gosbCommitHook((uintptr_t)ud); }

void gosb_rollback_hook_tramp(void *ud) { gosbRollbackHook((uintptr_t)ud); }

int32_t gosb_wal_hook_tramp(void *ud, const char *schema, int32_t pages) {
	return gosbWALHook((uintptr_t)ud, (char *)schema, strlen(schema), pages);
}

int32_t gosb_progress_tramp(void *ud) { return gosbProgress((uintptr_t)ud); }

int32_t gosb_busy_tramp(void *ud, int32_t count) { return gosbBusy((uintptr_t)ud, count); }

int32_t gosb_authorizer_tramp(void *ud, int32_t action, const char *a, const char *b,
		const char *schema, const char *trigger) {
	return gosbAuthorizer((uintptr_t)ud, action, (char *)a, a ? strlen(a) : 0, (char *)b, b ? strlen(b) : 0,
		(char *)schema, schema ? strlen(schema) : 0, (char *)trigger, trigger ? strlen(trigger) : 0);
}

void gosb_change_feed_tramp(void *ud, const sqlbatch_change *changes, size_t n_changes,
		const sqlbatch_change_table *tables, size_t n_tables, int32_t reason) {
	gosbChangeFeed((uintptr_t)ud, (sqlbatch_change *)changes, n_changes,
		(sqlbatch_change_table *)tables, n_tables, reason);
}

int32_t gosb_update_batch_tramp(void *ud, const sqlbatch_change *changes, size_t n_changes,
		const sqlbatch_change_table *tables, size_t n_tables) {
	return gosbUpdateBatch((uintptr_t)ud, (sqlbatch_change *)changes, n_changes,
		(sqlbatch_change_table *)tables, n_tables);
}
