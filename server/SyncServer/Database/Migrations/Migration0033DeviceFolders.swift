extension Migration {
    /// Which of its vault's folders a device says it holds (issue 58, `vaultsync folders`), in its
    /// own words, for device lists; NULL: it never said (every folder).
    static let deviceFolders = Migration(version: 33, name: "device_folders", sql: """
        ALTER TABLE devices ADD COLUMN folders TEXT;
        """)
}
