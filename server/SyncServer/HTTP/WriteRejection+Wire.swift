import SyncProtocol

extension WriteRejection {
    /// The per-file error a device reads for a file not written: the only place these are worded.
    func fileError(_ path: VaultPath) -> FileError {
        switch self {
        case .caseTaken(let other):
            FileError(path: path, code: .pathCaseConflict, message: "'\(other)' exists already and differs only by letter case")
        case .newName(let refusal):
            FileError(path: path, code: .invalidPath, message: "\(refusal)")
        case .noReservation(let version):
            FileError(path: path, code: .reservationNotFound, message: "no open push reservation for '\(path)' at version \(version): push again")
        case .notUploaded:
            FileError(path: path, code: .uploadMissing, message: "the bytes of '\(path)' were never uploaded: PUT them to the upload URL first")
        case .removedMeanwhile:
            FileError(path: path, code: .uploadMissing, message: "the bytes of '\(path)' were removed from the store meanwhile: push again")
        case .sizeMismatch(let stored, let declared):
            FileError(path: path, code: .contentMismatch, message: "stored bytes of '\(path)' are \(stored) bytes, \(declared) were declared")
        case .hashMismatch(let why):
            FileError(path: path, code: .contentMismatch, message: "'\(path)': \(why)")
        case .overQuota(let reason):
            FileError(path: path, code: .quotaExceeded, message: reason)
        case .contentNotKept:
            FileError(path: path, code: .notFound, message: "its content before the deletion is no longer kept")
        case .versionNotKept(let moment):
            FileError(path: path, code: .notFound, message: "its version at \(WireDate.format(moment)) is no longer kept (the server's version retention removed it); left as it is")
        case .heldElsewhere(let since):
            FileError(
                path: path, code: .versionConflict,
                message: "the vault holds a file there that this import did not write\(since.map { " (changed \(WireDate.format($0)))" } ?? ""): left as it is; import under another folder (--under)")
        case .historyNewer(let newest):
            FileError(path: path, code: .versionConflict, message: "its history in the vault goes on to \(WireDate.format(newest)), after this version's time: versions are imported in time order")
        case .tooLarge(let limit):
            FileError(path: path, code: .fileTooLarge, message: "a version is larger than the account's limit of \(limit) bytes per file")
        }
    }
}

extension WritePlan.Rejected {
    var fileError: FileError { why.fileError(path) }
}

extension WriteRefusal {
    /// The error a refused write answers with (mapped to the wire by ``ServiceError``'s `wire`).
    var serviceError: ServiceError {
        switch self {
        case .fileTooLarge(let path, let size, let limit):
            .fileTooLarge(path: path, size: size, limit: limit)
        case .pushOverQuota(let reason, let usage):
            .quotaExceeded(reason + " (nothing of this push was reserved)", usage: usage)
        case .restoreOverQuota(let reason, let usage):
            .quotaExceeded(reason, usage: usage)
        case .restoreAsOfOverQuota(let count, let reason, let usage):
            .quotaExceeded("the \(count) files brought back as they were would not fit: \(reason); nothing was restored (restore a folder, or make room)", usage: usage)
        case .importOverQuota(let count, let reason, let usage):
            .quotaExceeded("the \(count) imported versions would not fit: \(reason); nothing of this batch was written (make room, or import a folder)", usage: usage)
        case .undeleteOverQuota(let count, let reason, let usage):
            .quotaExceeded("the \(count) files would not fit: \(reason); nothing was restored (restore fewer with a folder, or make room)", usage: usage)
        case .noSuchVersion(let path, let version):
            .notFound("'\(path)' has no version \(version) (see GET /vault/history)")
        case .versionIsDeletion(let path, let version):
            .invalidRequest("version \(version) of '\(path)' is a deletion; restore a version before it")
        case .versionBytesGone(let path, let version):
            .notFound("the bytes of version \(version) of '\(path)' are no longer kept")
        case .caseTaken(let path, let other):
            .pathCaseConflict(path: path, existing: other)
        case .conflictBytesRemoved:
            .uploadMissing("the conflict's bytes were removed from the store meanwhile: PUT them to the upload URL again")
        case .conflictOverQuota(let reason, let usage):
            .quotaExceeded(reason + " (the conflict is not kept on the server; the device keeps its copy)", usage: usage)
        case .readOnly:
            .readOnly()
        case .locked(let path):
            .locked("'\(path)' is locked (WebDAV LOCK); send its lock token in an If header, or wait for it to be unlocked; nothing was written")
        case .namesChanged(let current):
            .namesChanged("the vault's names were re-encrypted under key generation \(current) since this device read them: read the state again (a device switches names), then send again; nothing was written")
        case .nameLeft(let path):
            .namesChanged("'\(path)' is a name this vault left when its names were re-encrypted (its file lives on under its new name): it does not come back; nothing was written")
        case .rekeyByManagersOnly:
            .adminOnly("only the vault's owner or an admin re-encrypts its names")
        case .rekeyGeneration(let why):
            .invalidRequest(why)
        case .rekeyBytesMissing(let path):
            .uploadMissing("the bytes named for '\(path)' are not stored: push them to that name and upload them first; nothing was renamed")
        case .rekeyOutdated(let why):
            .rekeyOutdated("\(why): the vault changed since its state was read; nothing was renamed (read the state and rekey again)")
        }
    }
}
