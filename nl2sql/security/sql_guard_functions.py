"""Which functions the SQL guard lets a query call, per dialect.

sqlglot maps the functions it knows to typed classes (`exp.Count`, `exp.DateTrunc`, ...); those
are allowed unless they read files, reach the network or change state (`DENIED_CLASSES`). A name
sqlglot does not know becomes `exp.Anonymous` and must be on the dialect's allow-list. Denied
names are checked first so a name that is harmless in one engine and dangerous in another (DuckDB
`glob` lists files, SQLite `glob` matches a pattern) is decided per dialect.
"""

from __future__ import annotations

import sqlglot.expressions as exp


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _classes(text: str) -> frozenset[type]:
    # getattr: a class missing from this sqlglot version simply cannot appear in a tree
    return frozenset(c for c in (getattr(exp, n, None) for n in text.split()) if c is not None)


#: Typed functions that read or write files, call models or services, or advance sequences.
DENIED_CLASSES = _classes("""
    ReadCSV ReadParquet ToFile NextValueFor AIAgg AIClassify AIEmbed AIForecast AIGenerate
    AISimilarity AISummarizeAgg MLForecast MLTranslate Predict GenerateEmbedding GenerateText
    GenerateTable GenerateBool GenerateDouble GenerateInt VectorSearch FeaturesAtTime Secret
""")

#: Nodes whose function name comes from the SQL text rather than from sqlglot's catalogue.
ANONYMOUS_CLASSES = _classes("""
    Anonymous AnonymousAggFunc CombinedAggFunc ParameterizedAgg CombinedParameterizedAgg
""")

#: Typed table-valued functions that only compute rows from their arguments.
TABLE_FUNCTION_CLASSES = _classes("""
    Unnest GenerateSeries ExplodingGenerateSeries JSONTable XMLTable Explode Posexplode Inline
    Flatten
""")

# File and network readers, sleeps, locks, sequences, session settings, SQL-in-a-string runners.
_DENIED_ALL = _names("""
    read_csv read_csv_auto read_parquet read_json read_json_auto read_json_objects
    read_json_objects_auto read_ndjson read_ndjson_auto read_ndjson_objects read_text read_blob
    read_xlsx parquet_scan sqlite_scan sqlite_attach postgres_scan postgres_attach
    postgres_query postgres_execute mysql_query mysql_execute iceberg_scan delta_scan
    arrow_scan sniff_csv which_secret query query_table getenv current_setting set_config
    setseed load_extension readfile writefile edit fts3_tokenizer zipfile load_file sleep
    benchmark sys_exec sys_eval pg_read_file pg_read_binary_file pg_ls_dir pg_stat_file
    pg_sleep pg_sleep_for pg_sleep_until lo_import lo_export dblink dblink_exec nextval setval
    currval lastval txid_current query_to_xml query_to_xmlschema query_to_xml_and_xmlschema
    cursor_to_xml table_to_xml database_to_xml schema_to_xml get_lock release_lock
    release_all_locks is_free_lock is_used_lock master_pos_wait source_pos_wait xp_cmdshell
""")
_DENIED_PREFIXES = tuple(
    "read_ pg_ lo_ dblink duckdb_ pragma_ sqlite_ parquet_ iceberg_ delta_ postgres_ mysql_ "
    "sys_ xp_ sp_ utl_ dbms_ http st_read".split()
)
_DENIED_BY_DIALECT = {"duckdb": _names("glob")}

# Standard scalar, aggregate, window, date, string, math and JSON functions, harmless in any
# engine (a name an engine lacks fails there as an ordinary error, not as a risk).
_COMMON = _names("""
    avg count max min sum total group_concat string_agg listagg array_agg median mode stddev
    stddev_pop stddev_samp variance var_pop var_samp corr covar_pop covar_samp regr_slope
    regr_intercept regr_count regr_r2 regr_avgx regr_avgy regr_sxx regr_syy regr_sxy
    percentile_cont percentile_disc bool_and bool_or every bit_and bit_or bit_xor count_if
    any_value first last arg_max arg_min max_by min_by approx_count_distinct
    row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value
    nth_value
    coalesce nullif ifnull nvl nvl2 iif if greatest least decode isnull
    abs acos acosh asin asinh atan atan2 atanh cbrt ceil ceiling cos cosh cot degrees div exp
    factorial floor gcd lcm ln log log10 log2 mod pi pow power radians random rand round sign
    sin sinh sqrt tan tanh trunc truncate width_bucket isnan isinf
    ascii btrim char char_length character_length chr concat concat_ws format initcap instr
    lcase left length len lower lpad ltrim md5 octet_length bit_length overlay position printf
    quote regexp_like regexp_replace regexp_substr regexp_instr regexp_count regexp_matches
    regexp_extract repeat replace reverse right rpad rtrim soundex space split_part starts_with
    ends_with strpos substr substring substring_index translate trim ucase unicode upper hex
    unhex to_hex sha1 sha2 sha256 locate mid contains
    current_date current_time current_timestamp now curdate curtime localtime localtimestamp
    date time datetime timestamp julianday unixepoch strftime strptime date_add date_sub
    date_diff datediff date_part datepart date_trunc datetrunc date_format extract year quarter
    month week weekday weekofyear day dayofmonth dayofweek dayofyear dayname monthname hour
    minute second last_day make_date make_time make_timestamp make_interval age to_char to_date
    to_timestamp to_number epoch epoch_ms timestampdiff timestampadd from_unixtime
    unix_timestamp str_to_date adddate subdate isodow isoyear yearweek
    typeof uuid json json_array json_array_length json_extract json_extract_path
    json_extract_path_text json_object json_type json_valid json_quote json_keys json_value
    json_query json_contains json_unquote json_length json_group_array json_group_object
    json_agg json_object_agg json_build_object json_build_array json_typeof to_json
    array_length cardinality array_position array_contains array_to_string array_cat
    array_append array_prepend
""")
_BY_DIALECT = {
    "sqlite": _names("""
        glob like likely unlikely likelihood timediff json_insert json_patch json_remove
        json_replace json_set json_error_position jsonb jsonb_array jsonb_object jsonb_extract
        jsonb_insert jsonb_patch jsonb_remove jsonb_replace jsonb_set jsonb_group_array
        jsonb_group_object
    """),
    "duckdb": _names("""
        list_value list_extract list_element list_contains list_has list_concat list_sort
        list_reverse_sort list_reverse list_distinct list_unique list_filter list_transform
        list_aggregate list_sum list_avg list_min list_max list_count list_slice list_position
        array_value array_slice array_extract array_has array_sort array_distinct array_filter
        array_transform array_aggregate string_split str_split string_split_regex
        regexp_split_to_array regexp_full_match regexp_extract_all strlen length_grapheme
        strip_accents nfc_normalize jaccard levenshtein damerau_levenshtein jaro_similarity
        jaro_winkler_similarity hamming mismatches struct_pack struct_extract struct_insert row
        map map_keys map_values map_entries map_extract element_at histogram quantile
        quantile_cont quantile_disc approx_quantile reservoir_quantile kurtosis kurtosis_pop
        skewness entropy product fsum favg arbitrary list time_bucket today
        get_current_timestamp transaction_timestamp epoch_us epoch_ns make_timestamptz
        to_days to_hours to_minutes to_seconds to_months to_years to_weeks century decade
        millennium era microsecond millisecond nanosecond range generate_series hash
        md5_number base64 to_base64 from_base64 encode round_even even gamma lgamma
        signbit nextafter xor bit_count isfinite ord json_extract_string json_structure
        json_merge_patch json_transform array_length
    """),
    "postgres": _names("""
        clock_timestamp statement_timestamp transaction_timestamp timeofday make_timestamptz
        justify_days justify_hours justify_interval isfinite date_bin timezone
        regexp_split_to_array regexp_match string_to_array array_lower array_upper array_dims
        array_positions array_remove array_replace unnest generate_series generate_subscripts
        jsonb_extract_path jsonb_extract_path_text jsonb_array_length jsonb_typeof jsonb_agg
        jsonb_object_agg jsonb_build_object jsonb_build_array jsonb_object_keys
        json_object_keys jsonb_set jsonb_insert jsonb_strip_nulls json_strip_nulls
        jsonb_pretty to_jsonb row_to_json array_to_json jsonb_path_exists jsonb_path_query_first
        jsonb_path_match num_nonnulls num_nulls quote_ident quote_literal quote_nullable
        sha224 sha384 sha512 convert_from convert_to to_ascii
    """),
    "mysql": _names("""
        sysdate utc_date utc_time utc_timestamp microsecond makedate maketime period_add
        period_diff to_days from_days to_seconds sec_to_time time_to_sec time_format addtime
        subtime convert_tz strcmp field find_in_set elt crc32 conv bin oct std json_arrayagg
        json_objectagg json_search json_set json_insert json_replace json_remove json_merge_patch
        json_pretty weight_string
    """),
}

_TABLE_FUNCTIONS = {
    "sqlite": _names("json_each json_tree jsonb_each jsonb_tree generate_series"),
    "duckdb": _names("range generate_series unnest json_each json_tree"),
    "postgres": _names("""
        generate_series generate_subscripts unnest json_each json_each_text jsonb_each
        jsonb_each_text json_array_elements json_array_elements_text jsonb_array_elements
        jsonb_array_elements_text json_to_record json_to_recordset jsonb_to_record
        jsonb_to_recordset json_object_keys jsonb_object_keys jsonb_path_query
        regexp_split_to_table regexp_matches string_to_table
    """),
}


def is_denied(name: str, dialect: str) -> bool:
    """True when `name` reads files, reaches the network or changes state in some engine."""
    lname = name.lower()
    return (
        lname in _DENIED_ALL
        or lname.startswith(_DENIED_PREFIXES)
        or lname in _DENIED_BY_DIALECT.get(dialect, frozenset())
    )


def is_allowed_scalar(name: str, dialect: str) -> bool:
    """True when `name` is a standard function allowed in expressions for `dialect`."""
    lname = name.lower()
    return lname in _COMMON or lname in _BY_DIALECT.get(dialect, frozenset())


def is_allowed_table_function(name: str, dialect: str) -> bool:
    """True when `name` may be used as a table source (FROM/JOIN/LATERAL) for `dialect`."""
    return name.lower() in _TABLE_FUNCTIONS.get(dialect, frozenset())
