"""The schema as the engine reads it: identifier words and column kinds (naming), the per-snapshot
phrase, value and key index (index) and the cache of recent indexes (cache)."""
