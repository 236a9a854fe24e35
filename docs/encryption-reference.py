#!/usr/bin/env python3
"""An independent implementation of VaultSync's encryption formats (docs/encryption.md), in Python
with the `cryptography` package. It writes the known-answer vectors the Swift implementation is
tested against (Tests/VaultCryptoTests/Fixtures/vectors.json), so two implementations agree on
every byte:

    python3 docs/encryption-reference.py > Tests/VaultCryptoTests/Fixtures/vectors.json
"""
import base64, hashlib, hmac, json, struct, unicodedata
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESGCMSIV
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

MAGIC = b"VSE\x01"


def hkdf(key, info, salt=None):
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info.encode()).derive(key)


def key_id(vault_key):
    return hmac.new(vault_key, b"vaultsync v1 key id", hashlib.sha256).digest()[:8]


# What a device shows the server to replace the key envelope: only a holder of the key has it.
def envelope_proof(vault_key):
    return hkdf(vault_key, "vaultsync v1 envelope proof")


# Files: a 48-byte header, then segments sealed with AES-256-GCM.
def seal_file(vault_key, salt, plaintext, segment_size):
    header = MAGIC + key_id(vault_key) + struct.pack(">I", segment_size) + salt
    aead = AESGCM(hkdf(vault_key, "vaultsync v1 file", salt))
    segments = [plaintext[i:i + segment_size] for i in range(0, len(plaintext), segment_size)] or [b""]
    out = header
    for index, segment in enumerate(segments):
        nonce = struct.pack(">Q", index) + b"\x00\x00\x00" + (b"\x01" if index == len(segments) - 1 else b"\x00")
        out += aead.encrypt(nonce, segment, header)
    return out


def open_file(vault_key, data):
    header = data[:48]
    assert header[:4] == MAGIC and header[4:12] == key_id(vault_key)
    segment_size = struct.unpack(">I", header[12:16])[0]
    aead = AESGCM(hkdf(vault_key, "vaultsync v1 file", header[16:48]))
    sealed, out, index, offset = segment_size + 16, b"", 0, 48
    while True:
        chunk = data[offset:offset + sealed]
        final = offset + sealed >= len(data)
        nonce = struct.pack(">Q", index) + b"\x00\x00\x00" + (b"\x01" if final else b"\x00")
        out += aead.decrypt(nonce, chunk, header)
        if final:
            return out
        offset, index = offset + sealed, index + 1


# Names: each segment with AES-256-GCM-SIV, zero nonce, the parent folder in the authenticated data.
def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def encrypt_path(vault_key, path):
    aead = AESGCMSIV(hkdf(vault_key, "vaultsync v1 names"))
    parent, out = "", []
    for segment in unicodedata.normalize("NFC", path).split("/"):
        padded = segment.encode() + b"\x80"
        padded += b"\x00" * (-len(padded) % 16)
        out.append(b64url(aead.encrypt(bytes(12), padded, b"vaultsync v1 name\x00" + parent.encode())))
        parent = segment if not parent else parent + "/" + segment
    return "/".join(out)


def fingerprint(vault_key, path):
    # VaultPath.caseFoldedKey: the NFC path, lowercased.
    folded = unicodedata.normalize("NFC", path).lower()
    return hmac.new(hkdf(vault_key, "vaultsync v1 path fingerprint"), folded.encode(), hashlib.sha256).hexdigest()


# Key wrapping: AES-256-GCM of the vault key, nonce || ciphertext || tag.
def wrap(kek, vault_key, nonce):
    return nonce + AESGCM(kek).encrypt(nonce, vault_key, b"vaultsync v1 wrapped key" + key_id(vault_key))


def passphrase_kek(passphrase, salt, log_n, r, p):
    return Scrypt(salt=salt, length=32, n=1 << log_n, r=r, p=p).derive(unicodedata.normalize("NFC", passphrase).encode())


def recovery_text(recovery):
    alphabet, bits, value, chars = "0123456789ABCDEFGHJKMNPQRSTVWXYZ", 0, 0, ""
    for byte in recovery:
        value, bits = value << 8 | byte, bits + 8
        while bits >= 5:
            bits -= 5
            chars += alphabet[(value >> bits) & 31]
    return "-".join(chars[i:i + 4] for i in range(0, len(chars), 4))


# Shared vaults: an account's X25519 and Ed25519 keys, a vault key wrapped to one member and signed.
def raw_public(key):
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def safety_number(agreement_public, signing_public):
    digest = hashlib.sha256(b"vaultsync v1 safety number" + agreement_public + signing_public).digest()
    return " ".join("%05d" % (int.from_bytes(digest[g * 5:g * 5 + 5], "big") % 100000) for g in range(6))


def member_context(vault_id, generation):
    """Format 2 binds the vault and the generation into the wrap and its signature; format 1 (read
    for grants made before it) binds neither."""
    return b"" if vault_id is None else vault_id + struct.pack(">I", generation)


def member_wrap(vault_key, recipient_public, sender_signing, ephemeral, nonce, vault_id=None, generation=None):
    form = b"\x01" if vault_id is None else b"\x02"
    context = member_context(vault_id, generation)
    ephemeral_public = raw_public(ephemeral)
    shared = ephemeral.exchange(X25519PublicKey.from_public_bytes(recipient_public))
    kek = HKDF(algorithm=hashes.SHA256(), length=32, salt=ephemeral_public + recipient_public, info=b"vaultsync v1 member wrap").derive(shared)
    kid = key_id(vault_key)
    aad = b"vaultsync v1 member key" + form + context + kid + recipient_public
    wrapped = form + ephemeral_public + nonce + AESGCM(kek).encrypt(nonce, vault_key, aad)
    signed_form = b"" if vault_id is None else form
    return wrapped, sender_signing.sign(b"vaultsync v1 member key signature" + signed_form + context + kid + recipient_public + wrapped)


def member_unwrap(vault_key_id, wrapped, signature, recipient, sender_signing_public, vault_id=None, generation=None):
    form = wrapped[:1]
    assert form == (b"\x01" if vault_id is None else b"\x02")
    context = member_context(vault_id, generation)
    signed_form = b"" if vault_id is None else form
    recipient_public = raw_public(recipient)
    Ed25519PublicKey.from_public_bytes(sender_signing_public).verify(
        signature, b"vaultsync v1 member key signature" + signed_form + context + vault_key_id + recipient_public + wrapped)
    ephemeral_public, nonce = wrapped[1:33], wrapped[33:45]
    shared = recipient.exchange(X25519PublicKey.from_public_bytes(ephemeral_public))
    kek = HKDF(algorithm=hashes.SHA256(), length=32, salt=ephemeral_public + recipient_public, info=b"vaultsync v1 member wrap").derive(shared)
    return AESGCM(kek).decrypt(nonce, wrapped[45:], b"vaultsync v1 member key" + form + context + vault_key_id + recipient_public)


def seal_sharing_keys(kek, agreement, signing, nonce):
    private = agreement.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()) + \
        signing.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    return nonce + AESGCM(kek).encrypt(nonce, private, b"vaultsync v1 sharing keys" + raw_public(agreement) + raw_public(signing))


def sharing(vault_key, kek, recovery):
    owner_agreement, owner_signing = X25519PrivateKey.from_private_bytes(bytes(range(0xa0, 0xc0))), Ed25519PrivateKey.from_private_bytes(bytes(range(0xc0, 0xe0)))
    member_agreement, member_signing = X25519PrivateKey.from_private_bytes(bytes(range(0xe0, 0x100))), Ed25519PrivateKey.from_private_bytes(bytes(range(0x00, 0x20)))
    ephemeral, nonce = X25519PrivateKey.from_private_bytes(bytes(range(0x20, 0x40))), bytes(range(0x88, 0x94))
    wrapped, signature = member_wrap(vault_key, raw_public(member_agreement), owner_signing, ephemeral, nonce)
    assert member_unwrap(key_id(vault_key), wrapped, signature, member_agreement, raw_public(owner_signing)) == vault_key
    def account(agreement, signing):
        private = agreement.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()) + \
            signing.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
        return {"private_hex": private.hex(), "agreement_public_hex": raw_public(agreement).hex(), "signing_public_hex": raw_public(signing).hex(),
                "safety_number": safety_number(raw_public(agreement), raw_public(signing))}
    return {
        "owner": account(owner_agreement, owner_signing), "member": account(member_agreement, member_signing),
        "ephemeral_private_hex": bytes(range(0x20, 0x40)).hex(), "nonce_hex": nonce.hex(),
        "wrapped_hex": wrapped.hex(), "signature_hex": signature.hex(),
        "sealed_by_passphrase_hex": seal_sharing_keys(kek, member_agreement, member_signing, bytes(range(0x94, 0xa0))).hex(),
        "sealed_by_recovery_hex": seal_sharing_keys(hkdf(recovery, "vaultsync v1 recovery"), member_agreement, member_signing, bytes(range(0x54, 0x60))).hex(),
    }


# A vault with two key generations (docs/decisions/0003-shared-encrypted-vaults.md): a version sealed
# under generation 2 (its header names generation 2's key id), its name under generation 1's name key
# and, after a rekey, under generation 2's (with its fingerprint), and generation 2 wrapped to the
# member by the owner.
def generations(vault_key):
    second = bytes(range(0x50, 0x70))
    salt = bytes(range(0x30, 0x50))
    plaintext = b"\x89PNG attachment after a removal\n" * 2
    sealed = seal_file(second, salt, plaintext, 32)
    assert open_file(second, sealed) == plaintext
    owner_signing = Ed25519PrivateKey.from_private_bytes(bytes(range(0xc0, 0xe0)))
    member_agreement = X25519PrivateKey.from_private_bytes(bytes(range(0xe0, 0x100)))
    ephemeral, nonce = X25519PrivateKey.from_private_bytes(bytes(range(0x70, 0x90))), bytes(range(0x90, 0x9c))
    wrapped, signature = member_wrap(second, raw_public(member_agreement), owner_signing, ephemeral, nonce)
    assert member_unwrap(key_id(second), wrapped, signature, member_agreement, raw_public(owner_signing)) == second
    vault_id, generation = bytes(range(0xb0, 0xc0)), 2
    bound_wrapped, bound_signature = member_wrap(second, raw_public(member_agreement), owner_signing, ephemeral, nonce, vault_id, generation)
    assert member_unwrap(key_id(second), bound_wrapped, bound_signature, member_agreement, raw_public(owner_signing), vault_id, generation) == second
    path = "attachments/after removal.png"
    return {
        "second_key_hex": second.hex(), "second_key_id_hex": key_id(second).hex(), "file_salt_hex": salt.hex(), "segment_size": 32,
        "plaintext_hex": plaintext.hex(), "ciphertext_hex": sealed.hex(),
        "path": path, "encrypted_path": encrypt_path(vault_key, path),
        "rekeyed_path": encrypt_path(second, path), "rekeyed_fingerprint": fingerprint(second, path),
        "ephemeral_private_hex": bytes(range(0x70, 0x90)).hex(), "nonce_hex": nonce.hex(), "wrapped_hex": wrapped.hex(), "signature_hex": signature.hex(),
        "bound_vault_id_hex": vault_id.hex(), "bound_generation": generation,
        "bound_wrapped_hex": bound_wrapped.hex(), "bound_signature_hex": bound_signature.hex(),
    }


def main():
    vault_key = bytes(range(32))
    salt = bytes(range(0x40, 0x60))
    files = []
    for plaintext, segment_size in [(b"", 16), (b"hello, vault", 16), (b"0123456789" * 4, 16), (b"exactly sixteen!", 16), ("caf\u00e9 notes\n".encode() * 3, 65536)]:
        sealed = seal_file(vault_key, salt, plaintext, segment_size)
        assert open_file(vault_key, sealed) == plaintext
        files.append({"plaintext_hex": plaintext.hex(), "segment_size": segment_size, "ciphertext_hex": sealed.hex()})
    paths = [{"path": p, "encrypted": encrypt_path(vault_key, p), "fingerprint": fingerprint(vault_key, p)}
             for p in ["a.md", "notes/caf\u00e9.md", "Notes/CAF\u00c9.md", "inbox/2026/plan.md", "plan.md", "x" * 159]]
    scrypt = {"salt_hex": bytes(range(0x60, 0x70)).hex(), "log_n": 10, "r": 8, "p": 1}
    passphrase = "correct horse battery staple"
    kek = passphrase_kek(passphrase, bytes.fromhex(scrypt["salt_hex"]), scrypt["log_n"], scrypt["r"], scrypt["p"])
    recovery = bytes(range(0x80, 0x94))
    print(json.dumps({
        "vault_key_hex": vault_key.hex(),
        "key_id_hex": key_id(vault_key).hex(),
        "envelope_proof_hex": envelope_proof(vault_key).hex(),
        "file_salt_hex": salt.hex(),
        "files": files,
        "paths": paths,
        "passphrase": {
            "passphrase": passphrase, "scrypt": scrypt, "kek_hex": kek.hex(), "nonce_hex": bytes(range(0x70, 0x7c)).hex(),
            "wrapped_hex": wrap(kek, vault_key, bytes(range(0x70, 0x7c))).hex(),
        },
        "recovery": {
            "recovery_key_hex": recovery.hex(), "text": recovery_text(recovery), "nonce_hex": bytes(range(0x7c, 0x88)).hex(),
            "wrapped_hex": wrap(hkdf(recovery, "vaultsync v1 recovery"), vault_key, bytes(range(0x7c, 0x88))).hex(),
        },
        "sharing": sharing(vault_key, kek, recovery),
        "generations": generations(vault_key),
    }, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
