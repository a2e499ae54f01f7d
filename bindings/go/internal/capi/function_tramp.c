// The C callbacks of Go registrations (see function.go): each passes its arguments on to an
// exported Go function, with user data and state as integers (cgo.Handle values).
#include <stdint.h>
#include "sqlbatch.h"
#include "_cgo_export.h"

void gosb_function_tramp(sqlbatch_call *call, void *ud, const sqlbatch_value *args, size_t n_args,
		const uint8_t *data) {
	gosbFunction(call, (uintptr_t)ud, (sqlbatch_value *)args, n_args, (uint8_t *)data);
}

void gosb_step_tramp(sqlbatch_call *call, void *ud, void **state, const sqlbatch_value *args,
		size_t n_rows, size_t n_args, const uint8_t *data) {
	gosbStep(call, (uintptr_t)ud, (uintptr_t *)state, (sqlbatch_value *)args, n_rows, n_args,
		(uint8_t *)data);
}

void gosb_finish_tramp(sqlbatch_call *call, void *ud, void *state) {
	gosbFinish(call, (uintptr_t)ud, (uintptr_t)state);
}

void gosb_inverse_tramp(sqlbatch_call *call, void *ud, void **state, const sqlbatch_value *args,
		size_t n_rows, size_t n_args, const uint8_t *data) {
	gosbInverse(call, (uintptr_t)ud, (uintptr_t *)state, (sqlbatch_value *)args, n_rows, n_args,
		(uint8_t *)data);
}

void gosb_value_tramp(sqlbatch_call *call, void *ud, void *state) {
	gosbValue(call, (uintptr_t)ud, (uintptr_t)state);
}

int32_t gosb_collation_tramp(void *ud, const uint8_t *a, size_t a_len, const uint8_t *b,
		size_t b_len) {
	return gosbCollation((uintptr_t)ud, (uint8_t *)a, a_len, (uint8_t *)b, b_len);
}

void gosb_destroy_tramp(void *ud) { gosbDestroy((uintptr_t)ud); }
