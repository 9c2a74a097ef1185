/**
 * Sessions → Serve and Resend state: the replay server's status (kept current
 * by `replay-server` events) and the last resend's diff, which outlives the
 * view (switching tabs and back still shows it).
 */
import { useCallback, useEffect, useState } from 'react';
import type { ReplayServerStatus, ResendReport, SessionInfo } from '../../../../proxy/src/api/contract';
import { api } from '../../api';
import type { useToasts } from '../../ui/Toasts';

let lastResend: ResendReport | undefined;

export function useReplay(toast: ReturnType<typeof useToasts>) {
  const [serve, setServe] = useState<ReplayServerStatus>();
  /** The session whose Serve form is open. */
  const [serveForm, setServeForm] = useState<SessionInfo>();
  const [starting, setStarting] = useState(false);
  const [servePanel, setServePanel] = useState(false);
  const [stopping, setStopping] = useState(false);
  const [resend, setResendState] = useState<ResendReport | undefined>(lastResend);
  const [resending, setResending] = useState<string>();
  const setResend = (r: ResendReport | undefined) => setResendState((lastResend = r));

  useEffect(() => {
    let live = true;
    api.replayServerStatus().then(
      (s) => {
        if (!live) return;
        setServe(s);
        if (s.running) setServePanel(true);
      },
      () => undefined,
    );
    const off = api.subscribe((e) => {
      if (e.type === 'replay-server') setServe(e.status);
    });
    return () => {
      live = false;
      off();
    };
  }, []);

  const startServe = useCallback(
    async (info: SessionInfo, options: { port: number; extra: ReplayServerStatus['extra'] }) => {
      setStarting(true);
      try {
        setServe(await api.startReplayServer({ id: info.id, ...options }));
        setServePanel(true);
        setServeForm(undefined);
      } catch (err) {
        // The core's message already names the session and says what to do.
        toast.error(err);
      } finally {
        setStarting(false);
      }
    },
    [toast],
  );

  const stopServe = useCallback(async () => {
    setStopping(true);
    try {
      setServe(await api.stopReplayServer());
    } catch (err) {
      toast.error(err, 'Could not stop the replay server');
    } finally {
      setStopping(false);
    }
  }, [toast]);

  const startResend = useCallback(
    async (info: SessionInfo) => {
      setResending(info.id);
      try {
        setResend(await api.resendSession({ id: info.id }));
      } catch (err) {
        toast.error(err, `Could not resend "${info.name}"`);
      } finally {
        setResending(undefined);
      }
    },
    [toast],
  );

  return {
    serve,
    servePanel,
    serveForm,
    askServe: (info: SessionInfo | undefined) => {
      setServeForm(info);
      if (info) setServePanel(false);
    },
    starting,
    hideServe: () => setServePanel(false),
    stopping,
    startServe,
    stopServe,
    resend,
    closeResend: () => setResend(undefined),
    resending,
    startResend,
  };
}
