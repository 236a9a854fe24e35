extension Migration {
    /// An agent's token (issue 60: `vaultsync tokens create --under`): an app password that
    /// reaches one folder of its vault (`under`, a path prefix ending in `/`; NULL: all of it).
    static let tokenFolder = Migration(version: 37, name: "token_folder", sql: """
        ALTER TABLE app_passwords ADD COLUMN under TEXT;
        """)
}
