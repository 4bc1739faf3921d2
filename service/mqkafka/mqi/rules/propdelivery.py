"""Where MQGET puts a message's properties, by MQGMO_PROPERTIES_* (pure).

A message's properties are its ``mqprop.*`` headers (module :mod:`mqkafka.mqi.rules.propwire`) and,
for a publication an MQSUB subscriber gets, the ``<usr>`` folder of the MQRFH2 the queue
holds: MQ's MQSUB delivers the publication's data alone with its properties as message
properties, the queued interface's MQRFH2 (``<psc>``, ``<usr>``...) stays for RegSub
subscribers and for MQGMO_PROPERTIES_FORCE_MQRFH2.

| MQGMO_ option | GMO.MsgHandle set | no handle |
|---|---|---|
| NO_PROPERTIES | none | none |
| PROPERTIES_IN_HANDLE | in the handle | none |
| PROPERTIES_AS_Q_DEF, _COMPATIBILITY (PROPCTL COMPAT) | in the handle | MQRFH2 ``<usr>`` |
| PROPERTIES_FORCE_MQRFH2 | MQRFH2 ``<usr>`` | MQRFH2 ``<usr>`` |

(MQRFH2 ``<usr>``: an MQRFH2 holding them in its ``<usr>`` folder, before the data.)

A message whose data already starts with an MQRFH2 (a RegSub subscriber's publication, or a
publication got with FORCE_MQRFH2) carries its properties in its own ``<usr>`` folder: no
second MQRFH2 is put before it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.propwire import Properties, from_headers, from_usr, usr_folder
from mqkafka.mqi.rules.rfh2class import RFH2
from mqkafka.mqi.rules.structs import MD

_RFH2_FORMAT = C.MQFMT_RF_HEADER_2


def _is_rfh2(md: MD) -> bool:
    return bytes(md.Format).ljust(C.MQ_FORMAT_LENGTH, b" ") == _RFH2_FORMAT


def publication_parts(data: bytes, md: MD) -> tuple[bytes, Properties]:
    """The data after the queued interface's MQRFH2 (the one the broker service puts before
    a publication: ``<psc>``, the publisher's properties in ``<usr>``...), and the
    properties of its ``<usr>`` folder; the MQMD then describes the data (Format, Encoding,
    CCSID). The publication's data is what its publisher put: when that starts with an
    MQRFH2 of its own (pymqi's ``Topic.pub_rfh2``), the data keeps it, Format MQHRF2, as
    MQ gives it to the subscriber (``get_rfh2`` takes it apart)."""
    found: Properties = {}
    if _is_rfh2(md):
        header = RFH2()
        header.unpack(data)
        usr = header.get().get("usr")
        if isinstance(usr, bytes):
            found.update(from_usr(usr.rstrip(b" \0").decode("utf-8", "replace")))
        data = data[header["StrucLength"] :]
        md.__dict__.update(
            Format=header["Format"],
            Encoding=header["Encoding"],
            CodedCharSetId=header["CodedCharSetId"],
        )
    return data, found


def with_usr_header(data: bytes, md: MD, properties: Properties) -> bytes:
    """``data`` behind an MQRFH2 holding ``properties`` in ``<usr>``; the MQMD says MQHRF2."""
    header = RFH2(
        Encoding=md.Encoding,
        CodedCharSetId=md.CodedCharSetId,
        Format=bytes(md.Format).ljust(C.MQ_FORMAT_LENGTH, b" "),
        NameValueCCSID=C.MQCCSI_UTF8,
    )
    header.add_folder(usr_folder(properties).encode())
    md.__dict__["Format"] = _RFH2_FORMAT
    return header.pack(md.Encoding) + data


def deliver_properties(
    data: bytes,
    md: MD,
    options: int,
    fields: Mapping[str, bytes | None],
    handle: Any,
    publication: bool,
) -> bytes:
    """The data MQGET returns, ``handle`` (a MessageHandle or None) given the properties
    the table above says; ``publication``: got by an MQSUB subscriber."""
    properties = from_headers(fields)
    force = bool(options & C.MQGMO_PROPERTIES_FORCE_MQRFH2)
    if publication and not force:
        data, usr = publication_parts(data, md)
        properties.update(usr)
    if options & C.MQGMO_NO_PROPERTIES:
        return data
    if handle is not None and not force:
        handle.properties.values = properties  # the handle holds this message's properties
        return data
    if options & C.MQGMO_PROPERTIES_IN_HANDLE or not properties or _is_rfh2(md):
        return data
    return with_usr_header(data, md, properties)


__all__ = ["deliver_properties", "publication_parts", "with_usr_header"]
