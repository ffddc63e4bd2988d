/** The role every API request runs as (SET LOCAL ROLE): NOBYPASSRLS, so row-level security binds. */
export const APP_ROLE = "ideally_app";
