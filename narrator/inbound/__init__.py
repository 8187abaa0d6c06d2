"""Inbound mail: the inbox sink and its receivers (SMTP/LMTP, IMAP poller, `narrator inject`)."""
