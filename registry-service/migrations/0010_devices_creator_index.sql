-- migrate: no-transaction
-- ListDevices' created_by_token_id filter (a domain-restricted token lists the devices it created):
-- a token's devices in name order, read along this index instead of every device. Partial: devices
-- created without a token are not indexed. Built CONCURRENTLY, like 0005 and 0009, so a large
-- devices table keeps taking writes while it builds; an interrupted build leaves an INVALID index
-- behind, dropped first when the file runs again.
DROP INDEX CONCURRENTLY IF EXISTS devices_created_by_token_id_name_idx;
CREATE INDEX CONCURRENTLY devices_created_by_token_id_name_idx ON devices (created_by_token_id, device_name) WHERE created_by_token_id IS NOT NULL;
