-- What a watcher holds of a commit's events, known without reading them: the size in bytes of the
-- events' JSON as the write statement received it. Watch pages (catch-up reads and the horizon's
-- tail) stop at a byte bound by summing it, so a page of large events is cut before its rows are
-- read. NULL for commits logged before this column: their size is computed from the events rows
-- when a page needs it (commit-log.ts COMMIT_EVENT_BYTES). Adding a nullable column without a
-- default rewrites nothing.
ALTER TABLE commit_log ADD COLUMN event_bytes int8;
