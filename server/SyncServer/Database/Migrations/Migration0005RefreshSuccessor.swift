extension Migration {
    /// Each rotated refresh token names the token that replaced it, so that a retry after a lost
    /// answer can be told from a copied token (the successor was never used).
    static let refreshSuccessor = Migration(version: 5, name: "refresh_successor", sql: """
        ALTER TABLE refresh_tokens ADD COLUMN replaced_by UUID;
        """)
}
