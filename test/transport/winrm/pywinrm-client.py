"""Drives Debian's pywinrm (python3-winrm 0.3) against the kubemix WinRM test server.

Usage: /usr/bin/python3 pywinrm-client.py MODE URL USER PASSWORD
MODE: ntlm (message encryption always), basic (HTTPS, certificate not validated),
      ntlm-timeout (operation timeout 1 s, the server delays output), ntlm-badpass.
Prints one JSON object with what pywinrm saw.
"""
import json
import sys

import winrm
from winrm.exceptions import InvalidCredentialsError


def text(b):
    return b.decode('utf-8') if isinstance(b, bytes) else b


def main():
    mode, url, user, password = sys.argv[1:5]
    out = {}
    if mode in ('ntlm', 'ntlm-badpass'):
        session = winrm.Session(url, auth=(user, password), transport='ntlm', message_encryption='always')
    elif mode == 'basic':
        session = winrm.Session(url, auth=(user, password), transport='basic', server_cert_validation='ignore')
    elif mode == 'ntlm-timeout':
        protocol = winrm.Protocol(url, transport='ntlm', username=user, password=password,
                                  message_encryption='always', operation_timeout_sec=1, read_timeout_sec=5)
        shell = protocol.open_shell()
        command = protocol.run_command(shell, 'cmd', ['/c', 'echo', 'late', '&', 'exit', '/b', '4'])
        stdout, stderr, code = protocol.get_command_output(shell, command)
        protocol.cleanup_command(shell, command)
        protocol.close_shell(shell)
        print(json.dumps({'late': [text(stdout), text(stderr), code]}))
        return
    else:
        raise SystemExit('unknown mode ' + mode)

    if mode == 'ntlm-badpass':
        try:
            session.run_cmd('hostname')
            out['error'] = None
        except InvalidCredentialsError as error:
            out['error'] = 'InvalidCredentialsError: %s' % error
        print(json.dumps(out))
        return

    r = session.run_cmd('ipconfig', ['/all'])
    out['ipconfig'] = [text(r.std_out), text(r.std_err), r.status_code]
    r = session.run_cmd('cmd', ['/c', 'echo', 'hello', '&', 'exit', '/b', '3'])
    out['cmd_exit'] = [text(r.std_out), text(r.std_err), r.status_code]
    r = session.run_cmd('nosuchcommand')
    out['unknown'] = [text(r.std_out), text(r.std_err), r.status_code]
    r = session.run_ps("Write-Output 'Grüße, 東京'")
    out['ps_unicode'] = [text(r.std_out), text(r.std_err), r.status_code]
    r = session.run_ps('exit 7')
    out['ps_exit'] = [text(r.std_out), text(r.std_err), r.status_code]
    r = session.run_ps("[Console]::Out.Write('x' * 300000)")
    out['ps_large'] = [len(r.std_out), r.status_code]
    print(json.dumps(out))


main()
