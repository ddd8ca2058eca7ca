package sqlguard

import (
	"slices"
	"strings"
)

// allowed is the built-in function allowlist: what analytics SQL needs and
// nothing that reads server state, changes it or runs other SQL. Names are as
// PostgreSQL stores them (lower case); a quoted "UPPER" is another function.
var allowed = nameSet(strings.Fields(`
	any_value array_agg avg bit_and bit_or bit_xor bool_and bool_or count every max min
	range_agg range_intersect_agg string_agg sum
	json_agg json_agg_strict json_object_agg json_object_agg_strict json_object_agg_unique
	json_object_agg_unique_strict jsonb_agg jsonb_agg_strict jsonb_object_agg
	jsonb_object_agg_strict jsonb_object_agg_unique jsonb_object_agg_unique_strict
	corr covar_pop covar_samp regr_avgx regr_avgy regr_count regr_intercept regr_r2
	regr_slope regr_sxx regr_sxy regr_syy stddev stddev_pop stddev_samp var_pop var_samp variance
	mode percentile_cont percentile_disc
	cume_dist dense_rank first_value lag last_value lead nth_value ntile percent_rank rank row_number

	abs acos acosd acosh asin asind asinh atan atan2 atan2d atand atanh cbrt ceil ceiling cos
	cosd cosh cot cotd degrees div erf erfc exp factorial floor gcd lcm ln log log10 min_scale
	mod pi pow power radians random random_normal round scale sign sin sind sinh sqrt tan tand
	tanh trim_scale trunc width_bucket bit_count

	ascii bit_length btrim char_length character_length chr concat concat_ws convert_from
	convert_to decode encode format initcap is_normalized left length like_escape lower lpad
	ltrim md5 normalize octet_length overlay position quote_ident quote_literal quote_nullable
	regexp_count regexp_instr regexp_like regexp_match regexp_matches regexp_replace
	regexp_split_to_array regexp_split_to_table regexp_substr repeat replace reverse right rpad
	rtrim sha224 sha256 sha384 sha512 similar_to_escape split_part starts_with string_to_array
	string_to_table strpos substr substring to_ascii to_hex translate unistr upper
	num_nonnulls num_nulls gen_random_uuid

	age clock_timestamp date_add date_bin date_part date_subtract date_trunc extract isfinite
	justify_days justify_hours justify_interval make_date make_interval
	make_time make_timestamp make_timestamptz now overlaps statement_timestamp timeofday
	timezone to_char to_date to_number to_timestamp transaction_timestamp

	bool bpchar date float4 float8 int2 int4 int8 interval numeric text time timestamp
	timestamptz varchar

	array_append array_cat array_dims array_fill array_length array_lower array_ndims
	array_position array_positions array_prepend array_remove array_replace array_sample
	array_shuffle array_to_string array_upper cardinality generate_subscripts trim_array unnest

	array_to_json json_array_elements json_array_elements_text json_array_length
	json_build_array json_build_object json_each json_each_text json_extract_path
	json_extract_path_text json_object json_object_keys json_populate_record
	json_populate_recordset json_strip_nulls json_to_record json_to_recordset json_typeof
	jsonb_array_elements jsonb_array_elements_text jsonb_array_length jsonb_build_array
	jsonb_build_object jsonb_each jsonb_each_text jsonb_extract_path jsonb_extract_path_text
	jsonb_insert jsonb_object jsonb_object_keys jsonb_path_exists jsonb_path_exists_tz
	jsonb_path_match jsonb_path_match_tz jsonb_path_query jsonb_path_query_array
	jsonb_path_query_array_tz jsonb_path_query_first jsonb_path_query_first_tz
	jsonb_path_query_tz jsonb_populate_record jsonb_populate_recordset jsonb_pretty jsonb_set
	jsonb_set_lax jsonb_strip_nulls jsonb_to_record jsonb_to_recordset jsonb_typeof
	row_to_json to_json to_jsonb

	daterange int4range int8range numrange tsrange tstzrange datemultirange int4multirange
	int8multirange nummultirange tsmultirange tstzmultirange isempty lower_inc lower_inf
	range_merge upper_inc upper_inf multirange

	array_to_tsvector numnode phraseto_tsquery plainto_tsquery querytree setweight strip
	to_tsquery to_tsvector ts_delete ts_filter ts_headline ts_rank ts_rank_cd tsvector_to_array
	websearch_to_tsquery

	generate_series
`))

// aggregates are the allowed functions that consume their whole input, which
// matters when judging whether a LIMIT bounds a recursive CTE.
var aggregates = nameSet(strings.Fields(`
	any_value array_agg avg bit_and bit_or bit_xor bool_and bool_or count every max min
	range_agg range_intersect_agg string_agg sum json_agg json_object_agg jsonb_agg
	jsonb_object_agg corr covar_pop covar_samp regr_avgx regr_avgy regr_count regr_intercept
	regr_r2 regr_slope regr_sxx regr_sxy regr_syy stddev stddev_pop stddev_samp var_pop var_samp
	variance mode percentile_cont percentile_disc cume_dist dense_rank percent_rank rank
`))

// AllowedFunctions returns the built-in function allowlist, sorted.
func AllowedFunctions() []string {
	out := make([]string, 0, len(allowed))
	for name := range allowed {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
