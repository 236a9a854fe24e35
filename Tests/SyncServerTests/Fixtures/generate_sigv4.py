"""Generates sigv4_botocore.json: presigned URLs and signed headers produced by botocore for the
inputs VaultSync's S3 store signs. Run once (python3 generate_sigv4.py); the output is committed and
SigV4SignerTests compare the Swift signer against it."""
import datetime, json
from unittest import mock
import botocore
from botocore.auth import S3SigV4QueryAuth, S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

WHEN = datetime.datetime(2026, 3, 24, 10, 30, 0, tzinfo=datetime.timezone.utc)
AK, SK = "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

def at_fixed_time(fn):
    with mock.patch("botocore.auth.get_current_datetime", return_value=WHEN):
        return fn()

presigned = []
for method, url, headers, expires, region, token in [
    ("PUT", "http://127.0.0.1:5000/vaultsync-test/vaults/0b1c2d3e-0000-4000-8000-000000000001/ab/abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789",
     {"x-amz-checksum-sha256": "n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg="}, 3600, "us-east-1", None),
    ("GET", "http://127.0.0.1:5000/vaultsync-test/vaults/0b1c2d3e-0000-4000-8000-000000000001/ab/abcdef", {}, 900, "us-east-1", None),
    ("GET", "https://my-bucket.s3.eu-west-1.amazonaws.com/vaults/x/ab/abcdef", {}, 604800, "eu-west-1", None),
    ("PUT", "https://acct.r2.cloudflarestorage.com/notes/vaults/x/ab/abcdef", {"x-amz-checksum-sha256": "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="}, 3600, "auto", None),
    ("GET", "https://bucket.s3.us-east-1.amazonaws.com/a%20key/with%2Bplus/%C3%A9t%C3%A9.md", {}, 60, "us-east-1", "FwoGZXIvYXdzEXAMPLETOKEN/+="),
]:
    request = AWSRequest(method=method, url=url, headers=dict(headers))
    def sign():
        S3SigV4QueryAuth(Credentials(AK, SK, token), "s3", region, expires=expires).add_auth(request)
        return request.url
    presigned.append({"method": method, "url": url, "headers": headers, "expires": expires, "region": region,
                      "session_token": token, "presigned_url": at_fixed_time(sign)})

signed = []
for method, url, payload_hash, region in [
    ("HEAD", "http://127.0.0.1:5000/vaultsync-test/vaults/x/ab/abcdef", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "us-east-1"),
    ("DELETE", "https://bucket.s3.eu-central-1.amazonaws.com/vaults/x/ab/abcdef", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "eu-central-1"),
    ("PUT", "http://127.0.0.1:5000/vaultsync-test", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "us-east-1"),
]:
    request = AWSRequest(method=method, url=url, headers={"X-Amz-Content-SHA256": payload_hash})
    def sign():
        S3SigV4Auth(Credentials(AK, SK), "s3", region).add_auth(request)
        return dict(request.headers.items())
    headers = at_fixed_time(sign)
    signed.append({"method": method, "url": url, "payload_hash": payload_hash, "region": region,
                   "authorization": headers["Authorization"], "x_amz_date": headers["X-Amz-Date"]})

with open("sigv4_botocore.json", "w") as f:
    json.dump({"botocore_version": botocore.__version__, "date": "20260324T103000Z", "access_key_id": AK,
               "secret_access_key": SK, "presigned": presigned, "signed": signed}, f, indent=2, sort_keys=True)
print("wrote sigv4_botocore.json")
