/* The compiled form of mqkafka.activity.blocks.Blocks (see its docstring): a batch's Avro
 * array blocks of activity events, cut into ActivityBatch record values as they come, and a
 * replayed fan-out-1 publication's block written straight from its plan's template. The
 * Python class is the reference; tests/unit/activity compares the two on any input. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    char *buf;           /* the open record's blocks, then room for the next block */
    Py_ssize_t size;     /* bytes of blocks in the open record */
    Py_ssize_t cap;
    Py_ssize_t limit;    /* MAX_BATCH_BYTES */
    PyObject *values;    /* the closed records' values (list of bytes) */
    long long time_ms;   /* the batch's processing time (begin) */
} Blocks;

static int reserve(Blocks *self, Py_ssize_t more) {
    if (self->size + more <= self->cap) return 0;
    Py_ssize_t cap = self->cap ? self->cap : 4096;
    while (cap < self->size + more) cap *= 2;
    char *buf = PyMem_Realloc(self->buf, (size_t)cap);
    if (buf == NULL) { PyErr_NoMemory(); return -1; }
    self->buf = buf;
    self->cap = cap;
    return 0;
}

/* The open record as a value: its blocks and the zero count that ends the array. */
static int close_record(Blocks *self, Py_ssize_t size) {
    PyObject *value = PyBytes_FromStringAndSize(NULL, size + 1);
    if (value == NULL) return -1;
    char *out = PyBytes_AS_STRING(value);
    memcpy(out, self->buf, (size_t)size);
    out[size] = 0;
    int failed = PyList_Append(self->values, value);
    Py_DECREF(value);
    return failed;
}

/* The block of ``length`` bytes just written at buf + size joins the open record, or, where
 * the record has blocks and it would not fit, starts the next one. */
static int commit(Blocks *self, Py_ssize_t length) {
    if (self->size && self->size + length > self->limit) {
        if (close_record(self, self->size) < 0) return -1;
        memmove(self->buf, self->buf + self->size, (size_t)length);
        self->size = 0;
    }
    self->size += length;
    return 0;
}

static char *put_long(char *out, long long value) {
    unsigned long long n = ((unsigned long long)value << 1) ^ (unsigned long long)(value >> 63);
    while (n > 0x7F) {
        *out++ = (char)((n & 0x7F) | 0x80);
        n >>= 7;
    }
    *out++ = (char)n;
    return out;
}

/* PyLong_AsLong where long has 64 bits: for times in ms (two 30-bit digits) it costs less
 * than PyLong_AsLongLong, which goes through _PyLong_AsByteArray. */
static long long as_long(PyObject *value) {
#if LONG_MAX >= 0x7FFFFFFFFFFFFFFF
    return PyLong_AsLong(value);
#else
    return PyLong_AsLongLong(value);
#endif
}

#define MQ_MSG_ID_LENGTH 24
#define ARGS 7
#define ROOM 32 /* bytes an argument may take, rounded up: its copy has a constant size */

static PyObject *not_a_template(void) {
    PyErr_SetString(PyExc_ValueError, "fan_out_1: not a fan_out_1_template");
    return NULL;
}

/* fan_out_1(template, msg_id, put_ms, value, head, body): the message is ``value``, its
 * copy ``head`` + ``body``; the sizes are taken here, not by the caller's len() calls. */
static PyObject *Blocks_fan_out_1(Blocks *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "fan_out_1(template, msg_id, put_ms, value, head, body)");
        return NULL;
    }
    PyObject *template = args[0], *msg_id = args[1];
    if (!PyBytes_Check(template) || !PyBytes_Check(msg_id) || !PyBytes_Check(args[3])
        || !PyBytes_Check(args[4]) || !PyBytes_Check(args[5])) {
        PyErr_SetString(PyExc_TypeError, "fan_out_1: its arguments but put_ms are bytes");
        return NULL;
    }
    if (PyBytes_GET_SIZE(msg_id) != MQ_MSG_ID_LENGTH) {
        PyErr_SetString(PyExc_ValueError, "fan_out_1: the template's MsgId is 24 bytes");
        return NULL;
    }
    long long put_ms = as_long(args[2]);
    if (put_ms == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t size = PyBytes_GET_SIZE(args[3]);
    Py_ssize_t copy_size = PyBytes_GET_SIZE(args[4]) + PyBytes_GET_SIZE(args[5]);

    /* the arguments of events.fan_out_1_template, as events.stamps makes them, each in a
     * buffer of ROOM bytes */
    char parts[ARGS][ROOM];
    Py_ssize_t lengths[ARGS];
    char *head = parts[0], *times = head + 2, *between = parts[3], *tail = parts[6];
    head[0] = 0x04; /* a block of two events */
    head[1] = 0x00; /* the first a COMMAND */
    Py_ssize_t times_length = put_long(put_long(times, self->time_ms), put_ms) - times;
    lengths[0] = 2 + times_length;
    if (PyFloat_Pack8((double)(self->time_ms - put_ms), tail, 1) < 0) return NULL;
    lengths[6] = 8;
    memcpy(between, tail, 8);
    between[8] = 0x02; /* DELIVERY */
    memcpy(between + 9, times, 20);
    lengths[3] = 9 + times_length;
    memcpy(parts[1], PyBytes_AS_STRING(msg_id), MQ_MSG_ID_LENGTH);
    memcpy(parts[4], PyBytes_AS_STRING(msg_id), MQ_MSG_ID_LENGTH);
    lengths[1] = lengths[4] = MQ_MSG_ID_LENGTH;
    lengths[2] = put_long(parts[2], size) - parts[2];
    lengths[5] = put_long(parts[5], copy_size) - parts[5];

    const char *in = PyBytes_AS_STRING(template);
    const char *stop = in + PyBytes_GET_SIZE(template);
    if (reserve(self, PyBytes_GET_SIZE(template) + ARGS * ROOM) < 0) return NULL;
    char *start = self->buf + self->size, *out = start;
    int arg = 0;
    for (;;) {
        /* the literal up to the next '%': the middles (long), a byte or nothing */
        const char *mark = in;
        if (mark < stop && *mark != '%') {
            if (mark + 1 < stop && mark[1] == '%') {
                *out++ = *mark++;
            } else {
                mark = memchr(in, '%', (size_t)(stop - in));
                if (mark == NULL) mark = stop;
                memcpy(out, in, (size_t)(mark - in));
                out += mark - in;
            }
        }
        if (mark == stop) break;
        if (mark + 1 == stop) return not_a_template();
        if (mark[1] == 'b') {
            if (arg == ARGS) return not_a_template();
            memcpy(out, parts[arg], ROOM);
            out += lengths[arg++];
        } else if (mark[1] == '%') {
            *out++ = '%';
        } else {
            return not_a_template();
        }
        in = mark + 2;
    }
    if (arg != ARGS) return not_a_template();
    if (commit(self, out - start) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *Blocks_add(Blocks *self, PyObject *block) {
    Py_buffer view;
    if (PyObject_GetBuffer(block, &view, PyBUF_SIMPLE) < 0) return NULL;
    int failed = reserve(self, view.len);
    if (!failed) {
        memcpy(self->buf + self->size, view.buf, (size_t)view.len);
        failed = commit(self, view.len);
    }
    PyBuffer_Release(&view);
    if (failed) return NULL;
    Py_RETURN_NONE;
}

static PyObject *Blocks_begin(Blocks *self, PyObject *time_ms) {
    long long value = PyLong_AsLongLong(time_ms);
    if (value == -1 && PyErr_Occurred()) return NULL;
    self->time_ms = value;
    Py_RETURN_NONE;
}

static PyObject *Blocks_take(Blocks *self, PyObject *Py_UNUSED(ignored)) {
    if (self->size) {
        if (close_record(self, self->size) < 0) return NULL;
        self->size = 0;
    }
    PyObject *values = self->values, *fresh = PyList_New(0);
    if (fresh == NULL) return NULL;
    self->values = fresh;
    return values;
}

static PyObject *Blocks_clear(Blocks *self, PyObject *Py_UNUSED(ignored)) {
    self->size = 0;
    if (PyList_SetSlice(self->values, 0, PY_SSIZE_T_MAX, NULL) < 0) return NULL;
    Py_RETURN_NONE;
}

static int Blocks_init(Blocks *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"limit", NULL};
    Py_ssize_t limit;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "n", names, &limit)) return -1;
    if (limit < 1) {
        PyErr_SetString(PyExc_ValueError, "Blocks: limit must be positive");
        return -1;
    }
    PyObject *values = PyList_New(0);
    if (values == NULL) return -1;
    Py_XSETREF(self->values, values);
    self->limit = limit;
    self->size = 0;
    self->time_ms = 0;
    return 0;
}

static void Blocks_dealloc(Blocks *self) {
    PyMem_Free(self->buf);
    Py_XDECREF(self->values);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Blocks_methods[] = {
    {"fan_out_1", (PyCFunction)(void (*)(void))Blocks_fan_out_1, METH_FASTCALL, NULL},
    {"add", (PyCFunction)Blocks_add, METH_O, NULL},
    {"begin", (PyCFunction)Blocks_begin, METH_O, NULL},
    {"take", (PyCFunction)Blocks_take, METH_NOARGS, NULL},
    {"clear", (PyCFunction)Blocks_clear, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject BlocksType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mqkafka.activity._blocks.Blocks",
    .tp_basicsize = sizeof(Blocks),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Blocks_init,
    .tp_dealloc = (destructor)Blocks_dealloc,
    .tp_methods = Blocks_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "mqkafka.activity._blocks",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__blocks(void) {
    if (PyType_Ready(&BlocksType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&BlocksType);
    if (PyModule_AddObject(m, "Blocks", (PyObject *)&BlocksType) < 0) {
        Py_DECREF(&BlocksType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
