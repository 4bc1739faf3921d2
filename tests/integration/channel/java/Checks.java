// What every check program of ours shares: one `CHECK <name> OK|FAIL <why>` line a check (the
// tests read those lines), an MQ reason code expected, and a message's text. The programs
// extend this class so that their calls read check(...), expectReason(...), text(...).

import com.ibm.mq.MQException;
import com.ibm.mq.MQMessage;
import com.ibm.mq.MQPutMessageOptions;
import com.ibm.mq.MQQueueManager;
import com.ibm.mq.constants.CMQC;
import java.nio.charset.StandardCharsets;
import javax.jms.JMSException;

class Checks {
    interface Check { void run() throws Exception; }

    // one line: the error and its causes (a JMSException's linked exception: the MQ reason)
    static void check(String name, Check body) {
        try {
            body.run();
            System.out.println("CHECK " + name + " OK");
        } catch (Throwable error) {
            Throwable cause = error;
            StringBuilder why = new StringBuilder();
            for (int depth = 0; cause != null && depth < 8; depth++) {
                why.append(depth == 0 ? "" : " <- ").append(cause);
                cause = cause instanceof JMSException && ((JMSException) cause).getLinkedException() != null
                    ? ((JMSException) cause).getLinkedException() : cause.getCause();
            }
            System.out.println("CHECK " + name + " FAIL " + why.toString().replace('\n', ' '));
        }
        System.out.flush();
    }

    static void expectReason(Check body, int reason) throws Exception {
        try {
            body.run();
        } catch (MQException error) {
            if (error.reasonCode == reason) return;
            throw new Exception("reason " + error.reasonCode + ", wanted " + reason);
        }
        throw new Exception("no error, wanted reason " + reason);
    }

    // the text before the first zero byte (read from the start: it may be asked again)
    static String text(MQMessage m) throws Exception {
        m.seek(0);
        byte[] all = new byte[m.getDataLength()];
        m.readFully(all);
        int end = 0;
        while (end < all.length && all[end] != 0) end++;
        return new String(all, 0, end, StandardCharsets.US_ASCII);
    }

    // a non-persistent text message outside syncpoint, ``extra`` zero bytes after the text
    static byte[] put(MQQueueManager to, String queue, String text, int extra) throws Exception {
        MQMessage m = new MQMessage();
        m.persistence = CMQC.MQPER_NOT_PERSISTENT;
        m.write(text.getBytes(StandardCharsets.US_ASCII));
        if (extra > 0) m.write(new byte[extra]);
        MQPutMessageOptions pmo = new MQPutMessageOptions();
        pmo.options = CMQC.MQPMO_NO_SYNCPOINT;
        to.put(queue, m, pmo);
        return m.messageId;
    }
}
