public import Foundation

/// A person's role in a vault: its `owner` (whose account keeps it), or a member who is an `admin`
/// (also manages members), a `writer` (everything a sync does) or a `reader` (syncs, never writes).
public enum VaultRole: String, Codable, Sendable, Equatable, CaseIterable {
    case owner, admin, writer, reader
}

/// One person in `GET /vaults/{id}/members`: the owner first, then the members by when they joined.
public struct VaultMember: Codable, Sendable, Equatable {
    public var userID: UUID
    public var email: String
    public var role: VaultRole
    /// When they joined (nil for the owner).
    public var addedAt: Date?
    /// Their public sharing keys (``AccountKeys``), when they have made them: what an encrypted
    /// vault's key is wrapped to, and what their safety number is computed from.
    public var agreementKey: Data?
    public var signingKey: Data?

    public init(userID: UUID, email: String, role: VaultRole, addedAt: Date?, agreementKey: Data? = nil, signingKey: Data? = nil) {
        self.userID = userID
        self.email = email
        self.role = role
        self.addedAt = addedAt
        self.agreementKey = agreementKey
        self.signingKey = signingKey
    }

    enum CodingKeys: String, CodingKey {
        case email, role
        case userID = "user_id"
        case addedAt = "added_at"
        case agreementKey = "agreement_key"
        case signingKey = "signing_key"
    }
}

/// `GET /vaults/{id}/members`: who is in the vault, and (for its owner and admins) the
/// invitations not yet answered.
public struct VaultMemberList: Codable, Sendable, Equatable {
    public var vaultID: UUID
    public var vaultName: String
    public var members: [VaultMember]
    /// Nil for a writer or a reader: they do not manage invitations.
    public var invitations: [VaultInvitation]?

    public init(vaultID: UUID, vaultName: String, members: [VaultMember], invitations: [VaultInvitation]?) {
        self.vaultID = vaultID
        self.vaultName = vaultName
        self.members = members
        self.invitations = invitations
    }

    enum CodingKeys: String, CodingKey {
        case members, invitations
        case vaultID = "vault_id"
        case vaultName = "vault_name"
    }
}

/// `POST /vaults/{id}/invitations`: invite the account with `email`, or (`code: true`) make a code
/// that whoever holds it redeems, for a server that sends no mail.
///
/// For an end-to-end encrypted vault, only by email, and `keys` holds every generation of the
/// vault's key wrapped to the invitee's sharing keys: the server cannot give them one.
public struct InviteRequest: Codable, Sendable, Equatable {
    public var email: String?
    public var code: Bool?
    public var role: VaultRole
    public var keys: [KeyGrant]?

    public init(email: String? = nil, code: Bool? = nil, role: VaultRole, keys: [KeyGrant]? = nil) {
        self.email = email
        self.code = code
        self.role = role
        self.keys = keys
    }
}

/// An invitation not yet answered: sent (to its vault's owner and admins) or received.
public struct VaultInvitation: Codable, Sendable, Equatable {
    public var invitationID: UUID
    public var vaultID: UUID
    public var vaultName: String
    /// The owner's email: whose vault it is.
    public var owner: String
    public var role: VaultRole
    /// The invited account's email; nil for an invitation by code.
    public var email: String?
    /// Who invited; nil when that account is gone.
    public var invitedBy: String?
    public var createdAt: Date
    public var expiresAt: Date
    /// The code, only in the answer that made it (the server keeps its hash).
    public var code: String?

    public init(
        invitationID: UUID, vaultID: UUID, vaultName: String, owner: String, role: VaultRole, email: String?, invitedBy: String?,
        createdAt: Date, expiresAt: Date, code: String? = nil
    ) {
        self.invitationID = invitationID
        self.vaultID = vaultID
        self.vaultName = vaultName
        self.owner = owner
        self.role = role
        self.email = email
        self.invitedBy = invitedBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.code = code
    }

    enum CodingKeys: String, CodingKey {
        case owner, role, email, code
        case invitationID = "invitation_id"
        case vaultID = "vault_id"
        case vaultName = "vault_name"
        case invitedBy = "invited_by"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
    }
}

/// `GET /invitations`: the invitations to the caller's account not yet answered.
public struct InvitationList: Codable, Sendable, Equatable {
    public var invitations: [VaultInvitation]
    public init(invitations: [VaultInvitation]) { self.invitations = invitations }
}

/// `POST /invitations/redeem`: an invitation code someone gave the caller.
public struct RedeemInvitationRequest: Codable, Sendable, Equatable {
    public var code: String
    public init(code: String) { self.code = code }
}

/// `PATCH /vaults/{id}/members/{user_id}`.
public struct SetRoleRequest: Codable, Sendable, Equatable {
    public var role: VaultRole
    public init(role: VaultRole) { self.role = role }
}
